// SPDX-License-Identifier: GPL-2.0-only
/* The registry of live recorders: /run/blkmap/PID names each one's spool and output. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/record/registry.h"
#include "blkmap/util/error.h"

void bm_registry_path(pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, BM_REGISTRY_DIR "/%d", (int)pid);
}

int bm_registry_add(const char *spool_dir, const char *output)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], spool[PATH_MAX], out_dir[PATH_MAX];
	const char *slash = strrchr(output, '/');
	FILE *f;

	if (!realpath(spool_dir, spool))
		return -1;
	snprintf(out_dir, sizeof(out_dir), "%.*s", slash ? (int)(slash - output) : 1,
		 slash ? output : ".");
	if (slash == output)
		strcpy(out_dir, "/");
	if (!realpath(out_dir, path))
		return -1;
	snprintf(out_dir, sizeof(out_dir), "%s/%s", path, slash ? slash + 1 : output);
	/* A minimal root (an initramfs) may have no /run: make the parent too. */
	snprintf(path, sizeof(path), "%s", BM_REGISTRY_DIR);
	*strrchr(path, '/') = '\0';
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		bm_error_errno("cannot create '%s' for " BM_REGISTRY_DIR "; create it (mode 0755)",
			       path);
		return -1;
	}
	if (mkdir(BM_REGISTRY_DIR, 0755) < 0 && errno != EEXIST) {
		bm_error_errno("cannot create " BM_REGISTRY_DIR);
		return -1;
	}
	bm_registry_path(getpid(), path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f) {
		bm_error_errno("cannot create '%s'", tmp);
		return -1;
	}
	fprintf(f, "spool=%s\noutput=%s\n", spool, out_dir);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		bm_error_errno("cannot create '%s'", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int bm_registry_note(const char *key, const char *value)
{
	char path[PATH_MAX];
	FILE *f;
	int ret;

	bm_registry_path(getpid(), path, sizeof(path));
	f = fopen(path, "ae");
	if (!f)
		return -1;
	fprintf(f, "%s=%s\n", key, value);
	ret = fclose(f);
	return ret ? -1 : 0;
}

int bm_registry_value(pid_t pid, const char *key, char *value, size_t size)
{
	char path[PATH_MAX], line[PATH_MAX + 64];
	size_t klen = strlen(key);
	int count = 0;
	FILE *f;

	bm_registry_path(pid, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (value)
		value[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, key, klen) || line[klen] != '=')
			continue;
		count++;
		if (value)
			snprintf(value, size, "%s", line + klen + 1);
	}
	fclose(f);
	return count;
}

void bm_registry_remove(void)
{
	char path[PATH_MAX];

	bm_registry_path(getpid(), path, sizeof(path));
	unlink(path);
}

bool bm_recorder_alive(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	/* Another program under a recycled pid is not a recorder. */
	return !strncmp(comm, "blkmap", 6);
}

void bm_registry_forget_spool(const char *spool)
{
	char real[PATH_MAX], path[PATH_MAX], line[PATH_MAX + 16];
	struct dirent *d;
	DIR *dp;

	if (!realpath(spool, real) || !(dp = opendir(BM_REGISTRY_DIR)))
		return;
	while ((d = readdir(dp))) {
		FILE *f;
		bool match = false;

		snprintf(path, sizeof(path), BM_REGISTRY_DIR "/%s", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			match |= !strncmp(line, "spool=", 6) && !strcmp(line + 6, real);
		}
		fclose(f);
		if (match)
			unlink(path);
	}
	closedir(dp);
}

int bm_registry_read(pid_t pid, char *spool, size_t spool_size, char *output, size_t output_size)
{
	char path[PATH_MAX], line[PATH_MAX + 16];
	FILE *f;

	bm_registry_path(pid, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -1;
	spool[0] = output[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "spool=", 6))
			snprintf(spool, spool_size, "%s", line + 6);
		else if (!strncmp(line, "output=", 7))
			snprintf(output, output_size, "%s", line + 7);
	}
	fclose(f);
	return 0;
}

int bm_registry_live(pid_t *pids, int max)
{
	struct dirent *d;
	int n = 0;
	DIR *dp = opendir(BM_REGISTRY_DIR);

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		char *end;
		pid_t pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || !bm_recorder_alive(pid))
			continue;
		if (n < max)
			pids[n] = pid;
		n++;
	}
	closedir(dp);
	return n;
}
