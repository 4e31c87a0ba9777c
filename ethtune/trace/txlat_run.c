/* Run `ethtune txlat` as a child beside a probe and read back its JSON report. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <jansson.h>

#include "util/ethtune.h"
#include "trace/txlat_run.h"

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static uint64_t unum(json_t *o, const char *k)
{
	double v = num(o, k);

	return isnan(v) || v < 0 ? 0 : (uint64_t)v;
}

int txlat_sample_parse(const char *text, struct txlat_sample *s)
{
	json_t *root = json_loads(text, 0, NULL), *all, *tcp, *h;
	size_t i;

	if (!root)
		return -EBADMSG;
	all = json_object_get(root, "all");
	tcp = json_object_get(root, "tcp");
	/* One queue in use: the report has no "all" row, only that queue. */
	if (!json_is_object(all)) {
		json_t *q = json_object_get(root, "queues");
		size_t k;

		for (k = 0; json_is_array(q) && k < json_array_size(q); k++)
			if (!all || unum(json_array_get(q, k), "xmit") > unum(all, "xmit"))
				all = json_array_get(q, k);
	}
	if (!json_is_object(all)) {
		json_decref(root);
		return -EBADMSG;
	}
	s->p50_us = num(all, "p50-us");
	s->p50_lo_us = num(all, "p50-lo-us");
	s->p50_hi_us = num(all, "p50-hi-us");
	s->p90_us = num(all, "p90-us");
	s->p99_us = num(all, "p99-us");
	s->max_us = num(all, "max-us");
	s->freed = unum(all, "freed");
	s->xmit = unum(all, "xmit");
	s->bytes = unum(all, "bytes");
	if (json_is_object(tcp)) {
		s->tcp_skbs = unum(tcp, "skbs");
		s->owned_at_xmit = unum(tcp, "owned-at-xmit");
		s->orphan_before_xmit = unum(tcp, "no-socket-at-xmit");
		s->orphaned_after_xmit = unum(tcp, "orphaned-after-xmit");
		if (json_is_string(json_object_get(tcp, "verdict")))
			snprintf(s->verdict, sizeof(s->verdict), "%s",
				 json_string_value(json_object_get(tcp, "verdict")));
	}
	if (s->tcp_skbs)
		s->orphan_frac = (double)(s->orphan_before_xmit + s->orphaned_after_xmit) /
				 (double)s->tcp_skbs;
	if (json_is_string(json_object_get(root, "free-is")))
		snprintf(s->free_is, sizeof(s->free_is), "%s",
			 json_string_value(json_object_get(root, "free-is")));
	h = json_object_get(all, "histogram");
	for (i = 0; json_is_array(h) && i < json_array_size(h) && s->nhist < 64; i++) {
		json_t *b = json_array_get(h, i);

		s->hist_lo[s->nhist] = num(b, "lo-us");
		s->hist_hi[s->nhist] = num(b, "hi-us");
		s->hist_count[s->nhist] = unum(b, "count");
		s->nhist++;
	}
	json_decref(root);
	s->ok = !isnan(s->p50_us) || s->tcp_skbs;
	return 0;
}

/* Wait until the tracer is attached (0), or it failed or timed out (-errno; s->err says). */
static int wait_ready(struct txlat_sample *s, double timeout_s)
{
	struct timespec ts = { 0, 20 * 1000000L };
	int i, st;

	for (i = 0; s->pid > 0 && i < timeout_s * 50; i++) {
		if (!access(s->ready, F_OK))
			return 0;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = -1;
			snprintf(s->err, sizeof(s->err), "txlat could not start tracing");
			return -EIO;
		}
		nanosleep(&ts, NULL);
	}
	if (s->pid > 0)
		snprintf(s->err, sizeof(s->err), "txlat did not attach within %.0f s", timeout_s);
	return -ETIMEDOUT;
}

/* The tracer runs a tiny load script once its programs are attached; the script marks that
 * with a file, so the caller starts its traffic only when every skb will be seen. */
void txlat_sample_start(const char *dev, double seconds, struct txlat_sample *s)
{
	char dur[32];
	FILE *f;
	int fd;

	memset(s, 0, sizeof(*s));
	s->pid = -1;
	snprintf(s->out, sizeof(s->out), "/tmp/ethtune-txlat-XXXXXX");
	fd = mkstemp(s->out);
	if (fd < 0) {
		snprintf(s->err, sizeof(s->err), "no temp file: %s", strerror(errno));
		s->out[0] = '\0';
		return;
	}
	snprintf(s->ready, sizeof(s->ready), "%s.ready", s->out);
	snprintf(s->script, sizeof(s->script), "%s.sh", s->out);
	unlink(s->ready);
	f = fopen(s->script, "w");
	if (!f || fprintf(f, "#!/bin/sh\n: > %s\nexec sleep %.2f\n", s->ready, seconds) < 0) {
		snprintf(s->err, sizeof(s->err), "cannot write the load script: %s",
			 strerror(errno));
		if (f)
			fclose(f);
		close(fd);
		return;
	}
	fclose(f);
	chmod(s->script, 0700);
	snprintf(dur, sizeof(dur), "%.2f", seconds);
	fflush(NULL);
	s->pid = fork();
	if (s->pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fd, STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		/* Already in the right namespace: no --netns for the child. */
		execl("/proc/self/exe", "ethtune", "--json", "txlat", dev, "--duration", dur,
		      "--load-cmd", s->script, (char *)NULL);
		_exit(127);
	}
	close(fd);
	if (s->pid < 0)
		snprintf(s->err, sizeof(s->err), "fork: %s", strerror(errno));
	else
		wait_ready(s, 30);
}

void txlat_sample_finish(struct txlat_sample *s)
{
	char *buf = NULL;
	size_t cap = 0;
	FILE *f;
	int st = 0;

	if (s->pid > 0) {
		waitpid(s->pid, &st, 0);
		s->pid = -1;
	}
	if (!s->out[0])
		return;
	f = fopen(s->out, "r");
	if (f) {
		ssize_t n = getdelim(&buf, &cap, '\0', f);

		if (n > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			txlat_sample_parse(buf, s);
		else
			snprintf(s->err, sizeof(s->err), "txlat exited %d", WEXITSTATUS(st));
		fclose(f);
	}
	free(buf);
	unlink(s->out);
	unlink(s->ready);
	unlink(s->script);
	s->out[0] = '\0';
}
