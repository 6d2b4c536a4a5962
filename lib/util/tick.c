// SPDX-License-Identifier: GPL-2.0-only
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/util/tick.h"

/* The number after the first @key in @text, if there is one. */
static int number_after(const char *text, const char *key, uint64_t *v)
{
	const char *p = strstr(text, key);

	return p && sscanf(p + strlen(key), "%" SCNu64, v) == 1 ? 0 : -1;
}

struct bm_tick bm_tick_parse(const char *text)
{
	/* The HZ Linux is built with; Debian's is 250. */
	static const int hzs[] = { 100, 250, 300, 1000 };
	struct bm_tick t = { 0, 0 };
	uint64_t now, jiffies, last_tick;
	int64_t best = -1;
	size_t i;
	int hz = 0;

	if (number_after(text, "now at ", &now) < 0 || number_after(text, "jiffies: ", &jiffies) < 0 ||
	    number_after(text, ".last_tick      : ", &last_tick) < 0 || !last_tick)
		return t;
	/* jiffies = (u32)(-300 HZ) + HZ x seconds since boot, less what the boot took */
	for (i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
		int64_t want = 4294967296LL + (int64_t)hzs[i] * (int64_t)(now / 1000000000) -
			       300LL * hzs[i];
		int64_t off = (int64_t)(jiffies - (uint64_t)want);

		if (jiffies <= UINT32_MAX)	/* a 32-bit kernel's jiffies wraps */
			off = (int32_t)(uint32_t)off;
		if (off < 0)
			off = -off;
		if (best < 0 || off < best) {
			best = off;
			hz = hzs[i];
		}
	}
	if (best > 10LL * hz)	/* not one of them, or a jiffies that says nothing */
		return t;
	t.ns = (1000000000ULL + hz / 2) / hz;
	t.at = last_tick;
	return t;
}

struct bm_tick bm_tick_read(void)
{
	static const char *const keys[] = { "now at ", ".last_tick ", "jiffies: " };
	struct bm_tick t = { 0, 0 };
	char line[512], kept[3 * sizeof(line)] = "";
	bool found[3] = { false, false, false };
	FILE *f = fopen("/proc/timer_list", "re");
	int left = 3;
	size_t i;

	if (!f)
		return t;
	/* The first of each: the timers listed between them can be many. */
	while (left && fgets(line, sizeof(line), f))
		for (i = 0; i < 3; i++)
			if (!found[i] && strstr(line, keys[i])) {
				found[i] = true;
				left--;
				strncat(kept, line, sizeof(kept) - strlen(kept) - 1);
			}
	fclose(f);
	return left ? t : bm_tick_parse(kept);
}
