By0JH„[ASû@DA·6AA8÷@Mðî@°èA1¿Ð@xPAÇúA³
A€	AïQAAÛLAïdA.ÿA