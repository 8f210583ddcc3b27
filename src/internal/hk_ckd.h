#include "hybridkit/ckd.h" /* src/internal/hk_ckd.h: the public include/hybridkit/ckd.h */
