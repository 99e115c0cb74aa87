/* lanes.h: the sums of sapc's dot() and softmax(), for the serial C twins.
 *
 * sap(7), "Floating-point arithmetic": a float sum runs in 16 lanes, a
 * double sum in 8; term k goes into lane k % L, each lane adds its terms
 * in index order starting from +0, and the lanes are added as a halving
 * tree.  The code is the runtime's (runtime/sap-lanes.h), so a twin
 * computes the same bits as the SAP program, as fast. */
#ifndef LANES_H
#define LANES_H

#include <stdint.h>
#include <string.h>
#include "../../runtime/sap-lanes.h"

#define lanes_sum_f sap_lanes_f
#define lanes_sum_d sap_lanes_d
#define lanes_dot_f sap_dot_f
#define lanes_dot_d sap_dot_d

#endif
