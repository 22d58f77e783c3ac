/* fleet_deliver.c - a campaign's runs into a store (--db) or a running server (--server, libcurl, HTTP or verified HTTPS) */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "campaigns.h"
#include "import.h"
#include "import_store.h"
#include "jsonlimit.h"
#include "store.h"
#include "strbuf.h"

static void import_failed(struct fleet_node *n, const char *why)
{
	/* the run stays in the campaign's directory; the node says why it is
	 * not in the store */
	n->state = FLEET_FAILED;
	snprintf(n->reason, sizeof(n->reason), "its run was not imported: %s",
		 why);
}

int fleet_deliver_db(struct fleet_campaign *c, const char *db,
		     struct errinfo *err)
{
	char msg[512];
	struct errinfo ie;
	struct store *st = store_open(db, msg, sizeof(msg));
	json_t *cj;
	int rc = 0;

	if (!st)
		return errinfo_set(err, "db", "%s", msg);
	for (int i = 0; i < c->n; i++) {
		struct fleet_node *n = &c->node[i];
		int64_t id;
		if (!n->doc)
			continue;
		if (import_validate(n->doc, &ie)) {
			import_failed(n, ie.msg);
			continue;
		}
		if (import_store(st, n->doc, NULL, &id, &ie)) {
			import_failed(n, ie.msg);
			continue;
		}
		n->run_id = id;
	}
	cj = fleet_campaign_json(c);
	if (!cj || campaigns_record(st, cj, err))
		rc = -EIO;
	json_decref(cj);
	store_close(st);
	return rc;
}

static size_t keep(char *data, size_t size, size_t n, void *arg)
{
	strbuf_add(arg, data, size * n);
	return size * n;
}

/* The host:port of an http(s) URL into out, "" when it has none. */
static void url_authority(const char *url, char *out, size_t len)
{
	const char *h = strstr(url, "://");
	size_t n;

	h = h ? h + 3 : url;
	n = strcspn(h, "/?#");
	snprintf(out, len, "%.*s", (int)n, h);
}

int fleet_server_check(const struct fleet_server *s, struct errinfo *err)
{
	int tls = !strncmp(s->url, "https://", 8);
	char auth[300];

	url_authority(s->url, auth, sizeof(auth));
	if ((!tls && strncmp(s->url, "http://", 7)) || !*auth ||
	    strchr(auth, '@') || strlen(s->url) > 1000)
		return errinfo_set(err, "server",
				   "bad --server '%.200s' (give "
				   "http://HOST[:PORT] or https://HOST[:PORT])",
				   s->url);
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

/* POSTs doc to s's url+path; the answer's JSON into *answer. HTTP status, or
 * -EIO with why. */
static long post(const struct fleet_server *s, const char *url,
		 const char *path, json_t *doc, json_t **answer, char *why,
		 size_t whylen)
{
	const char *token = s->token;
	struct curl_slist *to = NULL;
	struct strbuf body = STRBUF_INIT, full = STRBUF_INIT;
	struct curl_slist *h = NULL;
	char *text = json_dumps(doc, JSON_COMPACT);
	long code = -EIO;
	CURL *cu = curl_easy_init();

	*answer = NULL;
	if (!cu || !text) {
		snprintf(why, whylen, "out of memory");
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
	curl_easy_setopt(cu, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &body);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT, 60L);
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
	if (r != CURLE_OK) {
		snprintf(why, whylen, "cannot reach '%s': %s%s", full.buf,
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
		snprintf(why, whylen, "the server answered %ld: %s", code,
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

int fleet_deliver_server(struct fleet_campaign *c, const struct fleet_server *s,
			 struct errinfo *err)
{
	const char *url = s->url;
	char why[512];
	json_t *ans, *cj;
	long code;
	int rc = 0;
	struct strbuf base = STRBUF_INIT;

	strbuf_addstr(&base, url);
	while (base.len && base.buf[base.len - 1] == '/')
		strbuf_trim_end(&base, 1);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	for (int i = 0; i < c->n; i++) {
		struct fleet_node *n = &c->node[i];
		if (!n->doc)
			continue;
		code = post(s, base.buf, "/api/runs/import", n->doc, &ans, why,
			    sizeof(why));
		if (code == 201 && json_is_integer(json_object_get(ans, "id")))
			n->run_id =
				json_integer_value(json_object_get(ans, "id"));
		else
			import_failed(n, code < 0 || code >= 300
						 ? why
						 : "the server gave no run id");
		json_decref(ans);
	}
	cj = fleet_campaign_json(c);
	code = cj ? post(s, base.buf, "/api/campaigns", cj, &ans, why,
			 sizeof(why))
		  : -EIO;
	if (code != 201)
		rc = errinfo_set(err, "server",
				 "cannot record the campaign: %s",
				 code == -EIO && !cj ? "out of memory" : why);
	json_decref(ans);
	json_decref(cj);
	curl_global_cleanup();
	strbuf_release(&base);
	return rc ? -EIO : 0;
}
