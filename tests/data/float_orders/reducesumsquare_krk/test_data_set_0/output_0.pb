By0JH
lI9‹K|μάHAMG‰DVHu½™JZ\RJ4βJ†b‹J30NJ:a	JυnK2DJrέ;J4}JΗΨ2GΒ&XJΣdhH