/*
 * sim-noise.c: the latency noise aivet-sim injects on request, for tests of
 * timing probes that must not depend on the machine. Each prompt, in the
 * order prompts arrive, waits a further uniform 0 to --ttft-noise-ms ms of
 * its own, and a load delay of 0 to --ttft-load-ms ms that moves slowly: drawn
 * anew every --load-block prompts and interpolated in between, so that
 * neighbouring requests see nearly the same load (as on a vendor whose load
 * changes over seconds), wherever a probe's trials begin.
 * The draws come from --seed and the prompt's number only, so the same run
 * gets the same delays; large delays stand out of a busy machine's jitter.
 */
#include "config.h"

#include <stdint.h>

#include "sim.h"

static uint64_t prompts_seen;

/* SplitMix64's finaliser: a well-mixed 64 bits of seed, stream and index. */
static uint64_t
mix(uint64_t seed, uint64_t stream, uint64_t i)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15u * (stream * 0x100000000u + i + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

uint64_t
sim_noise_us(const struct sim_config *cfg)
{
	uint64_t i, us = 0, block = cfg->load_block > 0 ? (uint64_t)cfg->load_block : 20;

	if (cfg->ttft_noise_ms <= 0 && cfg->ttft_load_ms <= 0)
		return 0;
	i = __atomic_fetch_add(&prompts_seen, 1, __ATOMIC_RELAXED);
	if (cfg->ttft_noise_ms > 0)
		us += mix((uint64_t)cfg->seed, 1, i) % ((uint64_t)cfg->ttft_noise_ms * 1000 + 1);
	if (cfg->ttft_load_ms > 0) {
		uint64_t span = (uint64_t)cfg->ttft_load_ms * 1000 + 1, at = i % block;
		double from = (double)(mix((uint64_t)cfg->seed, 2, i / block) % span);
		double to = (double)(mix((uint64_t)cfg->seed, 2, i / block + 1) % span);

		us += (uint64_t)(from + (to - from) * (double)at / (double)block);
	}
	return us;
}
