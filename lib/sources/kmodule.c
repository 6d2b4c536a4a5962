// SPDX-License-Identifier: GPL-2.0-only
/* Talking to blkmap's kernel module through /sys/kernel/blkmap/control. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/sources/kmodule.h"
#include "blkmap/sources/session.h"
#include "blkmap/util/error.h"

struct bm_kmodule {
	int fd;
};

static int command(int fd, const char *cmd)
{
	ssize_t n = write(fd, cmd, strlen(cmd));

	return n == (ssize_t)strlen(cmd) ? 0 : -1;
}

struct bm_kmodule *bm_kmodule_attach(struct bm_session *session)
{
	struct bm_kmodule *m;
	char cmd[128];

	if (access(BM_MODULE_CONTROL, F_OK) < 0) {
		bm_error("module source: the blkmap module is not loaded (make module; "
			 "insmod module/blkmap.ko)");
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->fd = open(BM_MODULE_CONTROL, O_WRONLY | O_CLOEXEC);
	if (m->fd < 0) {
		bm_error_errno("module source: cannot open %s", BM_MODULE_CONTROL);
		free(m);
		return NULL;
	}
	/* Its format goes into the file; the module enables it when attached. */
	if (bm_session_enable(session, "synthetic:blkmap_dev") < 0)
		goto fail;
	snprintf(cmd, sizeof(cmd), "attach %s", bm_session_name(session));
	if (command(m->fd, cmd) < 0) {
		if (errno == EBUSY)
			bm_error("module source: the module records for another blkmap now");
		else
			bm_error_errno("module source: cannot attach the module");
		goto fail;
	}
	return m;
fail:
	close(m->fd);
	free(m);
	return NULL;
}

int bm_kmodule_dump(struct bm_kmodule *m)
{
	if (command(m->fd, "dump") < 0) {
		bm_error_errno("module source: statedump failed");
		return -1;
	}
	return 0;
}

void bm_kmodule_detach(struct bm_kmodule *m)
{
	if (!m)
		return;
	command(m->fd, "detach");
	close(m->fd);
	free(m);
}
