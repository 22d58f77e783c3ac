/* live_journal.c - a live run's events as they come: a file beside the store, a write a batch */
#include "live_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"

/* Whether the file's first bytes are a journal's head (or it is empty). */
static int ours(int fd, off_t size)
{
	char head[sizeof(LIVE_JOURNAL_HEAD) - 1];
	size_t k = sizeof(head);

	/* empty: ours, as a journal emptied at a roll is; shorter than a
	 * head but not empty: not known to be ours (a head is written in one
	 * go), so left alone */
	if (size == 0)
		return 1;
	return (size_t)size > k && pread(fd, head, k, 0) == (ssize_t)k &&
	       !memcmp(head, LIVE_JOURNAL_HEAD, k);
}

int live_journal_open(struct live_journal *j, const char *path)
{
	struct stat sb;
	int fd, rc;

	memset(j, 0, sizeof(*j));
	j->fd = -1;
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		rc = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
		close(fd);
		return rc;
	}
	if (fstat(fd, &sb)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	/* another user's file (a shared directory): not ours to write */
	if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
	    !ours(fd, sb.st_size)) {
		close(fd);
		return -EEXIST;
	}
	j->fd = fd;
	j->bytes = (size_t)sb.st_size;
	j->pending = j->bytes > 0; /* what a server that stopped left */
	return 0;
}

void live_journal_close(struct live_journal *j)
{
	if (j->fd >= 0)
		close(j->fd); /* the lock goes with it */
	j->fd = -1;
	strbuf_release(&j->buf);
}

/* The file cut back to its first bytes bytes. */
static int cut(struct live_journal *j, size_t bytes)
{
	if (ftruncate(j->fd, (off_t)bytes))
		return -errno;
	j->bytes = bytes;
	return 0;
}

/* All of buf (len bytes) at the file's end, or the file as it was. */
static int write_all(struct live_journal *j, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(j->fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int rc = w < 0 ? -errno : -ENOSPC;
			cut(j, j->bytes); /* no half line left behind */
			return rc;
		}
		done += (size_t)w;
	}
	j->bytes += len;
	return 0;
}

int live_journal_begin(struct live_journal *j, int64_t id)
{
	char head[sizeof(LIVE_JOURNAL_HEAD) + 24];
	size_t n = sizeof(LIVE_JOURNAL_HEAD) - 1;
	int rc;

	if (j->fd < 0 || id <= 0)
		return -EBADF;
	j->run_id = 0;
	if (j->bytes > LIVE_JOURNAL_ROLL) {
		rc = cut(j, 0);
		if (rc)
			return rc;
	}
	memcpy(head, LIVE_JOURNAL_HEAD, n);
	n += strbuf_int_text(head + n, (long long)id);
	head[n++] = '\n';
	j->start = j->bytes;
	rc = write_all(j, head, n);
	if (!rc) {
		j->run_id = id;
		j->pending = 1;
	}
	return rc;
}

int live_journal_append(struct live_journal *j,
			const struct runlog_event *const *ev, int n)
{
	/* the journal's own buffer, kept from batch to batch: a batch's
	 * write costs no allocation */
	struct strbuf *buf = &j->buf;
	char num[24];

	if (j->fd < 0 || !j->run_id)
		return -EBADF;
	for (int i = 0; i < n; i++)
		if (memchr(ev[i]->json, '\n', ev[i]->len))
			return -EINVAL;
	strbuf_reset(buf);
	for (int i = 0; i < n; i++) {
		strbuf_add(buf, num, strbuf_int_text(num, ev[i]->seq));
		strbuf_addch(buf, ' ');
		strbuf_add(buf, ev[i]->json, ev[i]->len);
		strbuf_addch(buf, '\n');
	}
	return buf->oom ? -ENOMEM : write_all(j, buf->buf, buf->len);
}

int live_journal_empty(struct live_journal *j)
{
	if (j->fd < 0)
		return -EBADF;
	j->run_id = 0;
	j->start = 0;
	j->pending = 0;
	return cut(j, 0);
}

int live_journal_kept(struct live_journal *j)
{
	static const char kept[] = LIVE_JOURNAL_KEPT;
	int rc;

	if (j->fd < 0)
		return -EBADF;
	rc = j->pending ? write_all(j, kept, sizeof(kept) - 1) : 0;
	if (!rc) {
		j->run_id = 0;
		j->pending = 0;
	}
	return rc;
}

int live_journal_read(struct live_journal *j, char **data, size_t *len)
{
	struct stat sb;
	size_t size, done = 0;
	char *buf;

	*data = NULL;
	*len = 0;
	if (j->fd < 0)
		return -EBADF;
	if (fstat(j->fd, &sb))
		return -errno;
	size = (size_t)sb.st_size;
	if (size <= j->start)
		return 0;
	size -= j->start;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	while (done < size) {
		ssize_t r = pread(j->fd, buf + done, size - done,
				  (off_t)(j->start + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int rc = r < 0 ? -errno : -EIO;
			free(buf);
			return rc;
		}
		done += (size_t)r;
	}
	*data = buf;
	*len = size;
	return 0;
}

/* A positive decimal of at most 18 digits at *p (before end), then stop:
 * its value, *p past stop; 0 when there is none. */
static int64_t number(const char **p, const char *end, char stop)
{
	const char *s = *p;
	int64_t v = 0;
	int digits = 0;

	while (s < end && *s >= '0' && *s <= '9' && digits < 18) {
		v = v * 10 + (*s++ - '0');
		digits++;
	}
	if (!digits || s >= end || *s != stop || v <= 0)
		return 0;
	*p = s + 1;
	return v;
}

/* Where the last head of data starts (len when there is none). */
static size_t last_head(const char *data, size_t len)
{
	size_t k = sizeof(LIVE_JOURNAL_HEAD) - 1, at = len;

	if (len >= k && !memcmp(data, LIVE_JOURNAL_HEAD, k))
		at = 0;
	for (const char *p = data;
	     (p = memchr(p, '\n', len - (size_t)(p - data)));) {
		p++;
		if ((size_t)(data + len - p) >= k &&
		    !memcmp(p, LIVE_JOURNAL_HEAD, k))
			at = (size_t)(p - data);
	}
	return at;
}

int live_journal_parse(const char *data, size_t len, int64_t *id,
		       struct live_event **ev, int *n)
{
	static const char kept[] = LIVE_JOURNAL_KEPT;
	size_t at = last_head(data, len);
	const char *p = data + at, *end = data + len;
	struct live_event *v = NULL;
	int cap = 0;

	*id = 0;
	*ev = NULL;
	*n = 0;
	if (at == len)
		return -EINVAL;
	p += sizeof(LIVE_JOURNAL_HEAD) - 1;
	*id = number(&p, end, '\n');
	if (!*id)
		return -EINVAL;
	while (p < end) {
		const char *nl;
		int64_t seq;

		if ((size_t)(end - p) >= sizeof(kept) - 1 &&
		    !memcmp(p, kept, sizeof(kept) - 1)) {
			*n = 0; /* all in the store */
			break;
		}
		seq = number(&p, end, ' ');
		nl = seq ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		/* a half-written line, or not one of ours: the rest goes */
		if (!nl || nl == p || (*n && seq <= v[*n - 1].seq))
			break;
		if (*n == cap) {
			int c = cap ? cap * 2 : 64;
			struct live_event *w =
				realloc(v, (size_t)c * sizeof(*w));
			if (!w) {
				free(v);
				*n = 0;
				return -ENOMEM;
			}
			v = w;
			cap = c;
		}
		v[(*n)++] = (struct live_event){seq, p, (size_t)(nl - p)};
		p = nl + 1;
	}
	if (!*n) {
		free(v);
		v = NULL;
	}
	*ev = v;
	return 0;
}
