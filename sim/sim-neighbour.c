/*
 * sim-neighbour.c: fault noisy-neighbour, one tenant's load failing another's
 * requests. A large request counts as in flight from the moment it is sized
 * until it ends. On demand (--neighbour-victims) it waits for its victims,
 * and with --neighbour-wait-ms every request that is not large first waits
 * for another tenant's large one, ending as soon as one is in flight. Without
 * that second wait, small requests sent beside a large one could be read and
 * answered before its upload was even read (they travel on idle kept-alive
 * connections; a large body on loopback sits in the socket until a thread
 * runs), and on a busy machine the overlap a test asks for came down to the
 * scheduler: it missed in a fifth of runs beside four busy loops.
 */
#include "config.h"

#include <time.h>

#include "sim-neighbour.h"

void
nb_init(struct sim_neighbour *nb, const struct sim_config *cfg)
{
	nb->cfg = cfg;
	pthread_mutex_init(&nb->mu, NULL);
	pthread_cond_init(&nb->changed, NULL);
	nb->large = xcalloc(cfg->ntenants + 1, sizeof *nb->large);
	nb->victims = 0;
}

void
nb_free(struct sim_neighbour *nb)
{
	pthread_mutex_destroy(&nb->mu);
	pthread_cond_destroy(&nb->changed);
	free(nb->large);
}

int
nb_is_large(const struct sim_neighbour *nb, size_t pool_tokens, size_t prompt_tokens)
{
	return sim_has_fault(nb->cfg->faults, FAULT_NOISY_NEIGHBOUR) && prompt_tokens > pool_tokens / 4;
}

static int
on_demand(const struct sim_neighbour *nb)
{
	return sim_has_fault(nb->cfg->faults, FAULT_NOISY_NEIGHBOUR) && nb->cfg->neighbour_victims > 0;
}

/* Some tenant but idx has a nonzero count in v (nb->mu held). */
static int
others(const struct sim_neighbour *nb, const unsigned *v, int idx)
{
	for (size_t i = 0; i <= nb->cfg->ntenants; i++)
		if ((int)i != idx && v[i] > 0)
			return 1;
	return 0;
}

void
nb_hold(struct sim_neighbour *nb, int idx, int delta)
{
	pthread_mutex_lock(&nb->mu);
	nb->large[idx] = (unsigned)((int)nb->large[idx] + delta);
	pthread_cond_broadcast(&nb->changed);
	pthread_mutex_unlock(&nb->mu);
}

/* now + ms, as pthread_cond_timedwait wants it. */
static struct timespec
deadline(int64_t ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += (time_t)(ms / 1000);
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

int
nb_waits(const struct sim_neighbour *nb)
{
	return on_demand(nb) && nb->cfg->neighbour_wait_ms > 0;
}

void
nb_settle(struct sim_neighbour *nb, int idx)
{
	struct timespec until;

	if (!nb_waits(nb))
		return;
	until = deadline(nb->cfg->neighbour_wait_ms);
	pthread_mutex_lock(&nb->mu);
	while (!others(nb, nb->large, idx))
		if (pthread_cond_timedwait(&nb->changed, &nb->mu, &until) != 0)
			break;
	pthread_mutex_unlock(&nb->mu);
}

int
nb_busy(struct sim_neighbour *nb, int idx)
{
	int busy;

	if (!sim_has_fault(nb->cfg->faults, FAULT_NOISY_NEIGHBOUR))
		return 0;
	pthread_mutex_lock(&nb->mu);
	busy = others(nb, nb->large, idx);
	pthread_mutex_unlock(&nb->mu);
	return busy;
}

void
nb_met(struct sim_neighbour *nb)
{
	pthread_mutex_lock(&nb->mu);
	nb->victims++;
	pthread_cond_broadcast(&nb->changed);
	pthread_mutex_unlock(&nb->mu);
}

unsigned long
nb_victims(struct sim_neighbour *nb)
{
	unsigned long n;

	pthread_mutex_lock(&nb->mu);
	n = nb->victims;
	pthread_mutex_unlock(&nb->mu);
	return n;
}

void
nb_wait(struct sim_neighbour *nb, unsigned long since)
{
	struct timespec until;

	if (nb->cfg->neighbour_victims <= 0) {
		sim_sleep_us((uint64_t)nb->cfg->neighbour_hold_ms * 1000);
		return;
	}
	until = deadline(nb->cfg->neighbour_hold_ms);
	pthread_mutex_lock(&nb->mu);
	while (nb->victims - since < (unsigned long)nb->cfg->neighbour_victims)
		if (pthread_cond_timedwait(&nb->changed, &nb->mu, &until) != 0)
			break;
	pthread_mutex_unlock(&nb->mu);
}
