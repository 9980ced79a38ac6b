Bwj
locationdata.binj
offset64j
length64p