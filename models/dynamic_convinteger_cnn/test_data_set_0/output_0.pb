
BoutputJ(&º0AGàŒ@´¸Á/sAfÚ›ARx¿±F#AY™£À$ÏN@¤IÁ