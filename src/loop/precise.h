/* SPDX-License-Identifier: MIT */
/* precise: --precise, trading power for timing as cyclictest does. */
#ifndef TFD_PRECISE_H
#define TFD_PRECISE_H

/* Asks for SCHED_FIFO, locks memory, holds /dev/cpu_dma_latency at 0 and
 * sets timer slack to 1 ns. Each part the system refuses is skipped with one
 * warning on stderr. Returns the descriptor that holds the latency request
 * (closing it releases the hold), or -1. */
int precise_enable(void);

#endif
