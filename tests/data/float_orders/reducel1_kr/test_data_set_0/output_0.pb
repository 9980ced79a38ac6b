By0Jõ#Eñ
ïCZÂD8$¼E