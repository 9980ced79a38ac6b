Bext_f32j
locationext.binj
offset16j
length24p