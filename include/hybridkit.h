/* hybridkit.h: umbrella header of libhybridkit (hybrid MPI+OpenMP toolkit).
 * Each module has its own header under hybridkit/; this one includes them all. */
#ifndef HYBRIDKIT_H
#define HYBRIDKIT_H

#include "hybridkit/version.h"
#include "hybridkit/error.h"
#include "hybridkit/env.h"
#include "hybridkit/timer.h"
#include "hybridkit/topo.h"
#include "hybridkit/record.h"
#include "hybridkit/cart.h"
#include "hybridkit/halo.h"
#include "hybridkit/coll.h"
#include "hybridkit/spmv.h"
#include "hybridkit/dsm.h"
#include "hybridkit/mem.h"
#include "hybridkit/try.h"

#endif
