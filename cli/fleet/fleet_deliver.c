/* fleet_deliver.c - a campaign's runs into a store (--db) or a running server (--server, libcurl, HTTP or verified HTTPS) */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "campaign_deliver.h"
#include "campaign_nodes.h"
#include "campaign_read.h"
#include "campaigns.h"
#include "jsonlimit.h"
#include "store.h"
#include "strbuf.h"
#include "url_check.h"

static size_t keep(char *data, size_t size, size_t n, void *arg)
{
	strbuf_add(arg, data, size * n);
	return size * n;
}

int fleet_server_check(const struct fleet_server *s, struct errinfo *err)
{
	int tls;

	if (url_check(s->url, "--server", 1, &tls, err))
		return -EINVAL;
	if (s->ca_file && !tls)
		return errinfo_set(err, "ca-file",
				   "--ca-file is for an https:// server; "
				   "'%.200s' is plain HTTP",
				   s->url);
	if (s->ca_file && access(s->ca_file, R_OK))
		return errinfo_set(err, "ca-file",
				   "cannot read --ca-file '%s': %s", s->ca_file,
				   strerror(errno));
	if (s->connect_to &&
	    (!*s->connect_to || strlen(s->connect_to) > 255 ||
	     strspn(s->connect_to,
		    "0123456789abcdefABCDEF.:-"
		    "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ") !=
		     strlen(s->connect_to)))
		return errinfo_set(err, "connect-to",
				   "bad --connect-to '%.200s' (give a host "
				   "name or address, no port)",
				   s->connect_to);
	return 0;
}

/* POSTs doc (or GETs, doc NULL) s's url+path; the answer's JSON into
 * *answer. HTTP status, or -EIO (the server cannot be reached now) or
 * -EPROTO (it never will be so: its certificate, the URL) with why. */
static long post(const struct fleet_server *s, const char *url,
		 const char *path, json_t *doc, json_t **answer,
		 struct errinfo *err)
{
	const char *token = s->token;
	struct curl_slist *to = NULL;
	struct strbuf body = STRBUF_INIT, full = STRBUF_INIT;
	struct curl_slist *h = NULL;
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	long code = -EIO;
	CURL *cu = curl_easy_init();

	*answer = NULL;
	if (!cu || (doc && !text)) {
		errinfo_set(err, NULL, "out of memory");
		goto out;
	}
	strbuf_addf(&full, "%s%s", url, path);
	h = curl_slist_append(h, "Content-Type: application/json");
	if (token) {
		struct strbuf a = STRBUF_INIT;
		strbuf_addf(&a, "Authorization: Bearer %s", token);
		h = curl_slist_append(h, a.buf);
		strbuf_release(&a);
	}
	curl_easy_setopt(cu, CURLOPT_URL, full.buf);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, h);
	if (text)
		curl_easy_setopt(cu, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &body);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	/* only the two schemes, and no redirect: the token goes nowhere else */
	curl_easy_setopt(cu, CURLOPT_PROTOCOLS_STR, "http,https");
	/* libcurl's defaults verify the peer and its name: kept, and said */
	curl_easy_setopt(cu, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(cu, CURLOPT_SSL_VERIFYHOST, 2L);
	if (s->ca_file)
		curl_easy_setopt(cu, CURLOPT_CAINFO, s->ca_file);
	if (s->connect_to) {
		/* "HOST:PORT:ADDR:PORT": any host and port of the URL */
		struct strbuf ct = STRBUF_INIT;
		int v6 = strchr(s->connect_to, ':') != NULL;
		strbuf_addf(&ct, "::%s%s%s:", v6 ? "[" : "", s->connect_to,
			    v6 ? "]" : "");
		to = curl_slist_append(NULL, ct.buf);
		strbuf_release(&ct);
		curl_easy_setopt(cu, CURLOPT_CONNECT_TO, to);
	}
	CURLcode r = curl_easy_perform(cu);
	/* what trying again cannot mend: the certificate, the URL, TLS */
	if (r == CURLE_PEER_FAILED_VERIFICATION ||
	    r == CURLE_SSL_CONNECT_ERROR || r == CURLE_URL_MALFORMAT ||
	    r == CURLE_UNSUPPORTED_PROTOCOL || r == CURLE_SSL_CACERT_BADFILE ||
	    r == CURLE_SSL_CERTPROBLEM)
		code = -EPROTO;
	if (r != CURLE_OK) {
		errinfo_set(err, NULL, "cannot reach '%s': %s%s", full.buf,
			    curl_easy_strerror(r),
			    r == CURLE_PEER_FAILED_VERIFICATION
				    ? " (a lab's own certificate: give it with "
				      "--ca-file FILE)"
				    : "");
		goto out;
	}
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &code);
	*answer = body.len ? jsonlimit_load(body.buf, body.len, 0, NULL, NULL,
					    NULL, 0)
			   : NULL;
	if (code >= 300) {
		const char *e =
			json_string_value(json_object_get(*answer, "error"));
		errinfo_set(err, NULL, "the server answered %ld: %s", code,
			    e ? e : "no reason given");
	}
out:
	curl_slist_free_all(h);
	curl_slist_free_all(to);
	if (cu)
		curl_easy_cleanup(cu);
	free(text);
	strbuf_release(&body);
	strbuf_release(&full);
	return code;
}

struct fleet_conn {
	struct store *st;		/* --db */
	const struct fleet_server *srv; /* --server */
	struct strbuf base;		/* its url, no trailing '/' */
};

struct fleet_conn *fleet_conn_open(const char *db,
				   const struct fleet_server *srv,
				   struct errinfo *err)
{
	struct fleet_conn *k = calloc(1, sizeof(*k));
	struct errinfo e;

	if (!k)
		return errinfo_set(err, NULL, "out of memory"), NULL;
	strbuf_init(&k->base);
	if (db) {
		k->st = store_open(db, &e);
		if (!k->st) {
			errinfo_set(err, "db", "%s", e.msg);
			free(k);
			return NULL;
		}
		return k;
	}
	k->srv = srv;
	strbuf_addstr(&k->base, srv->url);
	while (k->base.len && k->base.buf[k->base.len - 1] == '/')
		strbuf_trim_end(&k->base, 1);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return k;
}

void fleet_conn_close(struct fleet_conn *k)
{
	if (!k)
		return;
	if (k->st)
		store_close(k->st);
	else
		curl_global_cleanup();
	strbuf_release(&k->base);
	free(k);
}

/* An HTTP status into what a delivery does next: 0 delivered, 1 try
 * again later (the server away, busy, stopping), -1 never (refused). */
static int outcome(long code)
{
	if (code >= 200 && code < 300)
		return 0;
	if (code == -EPROTO)
		return -1;
	if (code < 0 || code >= 500 || code == 429 || code == 408)
		return 1;
	return -1;
}

int fleet_conn_record(struct fleet_conn *k, json_t *rec, struct errinfo *err)
{
	json_t *ans;
	long code;
	int rc;

	if (k->st) {
		rc = campaigns_record(k->st, rec, err);
		/* refused (a bad record, or one that would take a delivered
		 * run): sending it again changes nothing */
		return !rc ? 0 : rc == -EINVAL || rc == -EEXIST ? -1 : 1;
	}
	code = post(k->srv, k->base.buf, "/api/campaigns", rec, &ans, err);
	json_decref(ans);
	return outcome(code);
}

/* /api/campaigns/ID/nodes/NODE, each part escaped */
static void node_path(struct strbuf *sb, const char *cid, const char *node)
{
	char *a = curl_easy_escape(NULL, cid, 0),
	     *b = curl_easy_escape(NULL, node, 0);

	strbuf_addf(sb, "/api/campaigns/%s/nodes/%s", a ? a : "", b ? b : "");
	curl_free(a);
	curl_free(b);
}

int fleet_conn_node(struct fleet_conn *k, const char *cid, const char *node,
		    json_t *body, int64_t *run_id, int *cancel,
		    struct errinfo *err)
{
	struct campaign_node_update u = {
		json_string_value(json_object_get(body, "state")),
		json_string_value(json_object_get(body, "reason")),
		json_string_value(json_object_get(body, "job_id"))};
	struct strbuf path = STRBUF_INIT;
	json_t *ans, *run = json_object_get(body, "run");
	long code;
	int rc, stored;

	*run_id = 0;
	if (k->st) {
		rc = campaign_deliver_node(k->st, cid, node, &u,
					   json_is_object(run) ? run : NULL,
					   NULL, run_id, &stored, err);
		return !rc ? 0 : rc == -ESTALE || rc == -EIO ? 1 : -1;
	}
	node_path(&path, cid, node);
	code = post(k->srv, k->base.buf, path.buf, body, &ans, err);
	strbuf_release(&path);
	if (code == 200) {
		json_t *id = json_object_get(ans, "run_id");
		*run_id = json_is_integer(id) ? json_integer_value(id) : 0;
		*cancel = json_is_true(json_object_get(ans, "cancel"));
	}
	json_decref(ans);
	return outcome(code);
}

int fleet_conn_cancelled(struct fleet_conn *k, const char *cid)
{
	struct strbuf path = STRBUF_INIT;
	struct errinfo err;
	json_t *c;
	int yes;

	if (k->st) {
		c = campaigns_get(k->st, cid, 0, 1);
	} else {
		char *e = curl_easy_escape(NULL, cid, 0);
		strbuf_addf(&path, "/api/campaigns/%s?limit=1", e ? e : "");
		curl_free(e);
		if (post(k->srv, k->base.buf, path.buf, NULL, &c, &err) !=
		    200) {
			json_decref(c);
			c = NULL;
		}
		strbuf_release(&path);
	}
	yes = json_is_true(json_object_get(c, "cancel_requested"));
	json_decref(c);
	return yes;
}
