ByJВ
rEе­sG-hЬЖG°;ИЁяхD{`G