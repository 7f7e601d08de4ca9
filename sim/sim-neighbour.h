/*
 * sim-neighbour.h: fault noisy-neighbour's shared state. A "large" request
 * (over a quarter of the pool) holds the server; a request of another tenant
 * that meets it fails. With --neighbour-victims the overlap is on demand: the
 * large request waits for its victims, and with --neighbour-wait-ms a request
 * that is not large waits for another tenant's large one, so that which
 * request the machine's scheduler ran first never decides whether they met.
 */
#ifndef AIVET_SIM_NEIGHBOUR_H
#define AIVET_SIM_NEIGHBOUR_H

#include <pthread.h>

#include "sim.h"

struct sim_neighbour {
	const struct sim_config *cfg;
	pthread_mutex_t mu;
	pthread_cond_t changed;     /* a large request came or went, or a request met one */
	unsigned *large;            /* per tenant index (ntenants + 1): large requests in flight */
	unsigned long victims;      /* requests that met another tenant's load, ever */
};

void nb_init(struct sim_neighbour *nb, const struct sim_config *cfg);
void nb_free(struct sim_neighbour *nb);
/* A prompt of prompt_tokens holds the server (the fault is on and it is large). */
int nb_is_large(const struct sim_neighbour *nb, size_t pool_tokens, size_t prompt_tokens);
void nb_hold(struct sim_neighbour *nb, int idx, int delta);
/* On demand with --neighbour-wait-ms, a request that is not large waits (nb_waits
 * says whether it will), that long at most, for another tenant's large request
 * to be in flight. */
int nb_waits(const struct sim_neighbour *nb);
void nb_settle(struct sim_neighbour *nb, int idx);
/* True when another tenant's large request is in flight. */
int nb_busy(struct sim_neighbour *nb, int idx);
/* A request met another tenant's load: one more victim. */
void nb_met(struct sim_neighbour *nb);
unsigned long nb_victims(struct sim_neighbour *nb);
/* A large request's hold: --neighbour-hold-ms, or on demand until
 * --neighbour-victims requests met it since `since`, --neighbour-hold-ms at most. */
void nb_wait(struct sim_neighbour *nb, unsigned long since);

#endif
