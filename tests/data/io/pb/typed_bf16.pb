*€ €É€B
typed_bf16