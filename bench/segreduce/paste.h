// Token pasting for the benchmark kernels (kernels.cu, bench/scan/scan.cu): a primitive's name from its
// parts, e.g. CAT4(coop_block_load_, SR_TC, _t256, CAT3(_i, SR_N, _vectorize)).
#pragma once
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CAT3(a, b, c) CAT(CAT(a, b), c)
#define CAT4(a, b, c, d) CAT(CAT3(a, b, c), d)
