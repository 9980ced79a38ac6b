
*€x€‚ÿ÷B	typed_f16