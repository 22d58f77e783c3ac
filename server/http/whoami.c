/* whoami.c - what a browser's sign-in is (GET, PATCH /api/session), and the class's links and lobby */
#define _GNU_SOURCE
#include "whoami.h"
#include "auth.h"
#include "http_internal.h"
#include "http_response.h"
#include "join_code.h"
#include "session.h"
#include "strbuf.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether a Host header's name (its port aside) is a loopback one. */
static int loopback_host(const char *host)
{
	char name[64];
	unsigned char a[16];
	size_t n;

	if (host[0] == '[') {
		n = strcspn(host + 1, "]");
		host++;
	} else {
		n = strcspn(host, ":");
	}
	if (n >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	if (n && name[n - 1] == '.')
		name[n - 1] = '\0';
	if (!strcasecmp(name, "localhost"))
		return 1;
	if (inet_pton(AF_INET, name, a) == 1)
		return a[0] == 127;
	return inet_pton(AF_INET6, name, a) == 1 &&
	       !memcmp(a, &in6addr_loopback, 16);
}

/* Whether a Host header's name (its port aside) is an address literal. */
static int address_host(const char *host)
{
	char name[64];
	unsigned char a[16];
	size_t n = host[0] == '[' ? 0 : strcspn(host, ":");

	if (host[0] == '[')
		return 1;
	if (n >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	return inet_pton(AF_INET, name, a) == 1;
}

/*
 * The class's sign-in link, for the teacher's projector to show: on
 * --public-url when there is one; else on the address the teacher's
 * browser named (the Host check let it through), or on the first
 * address a phone reaches when the teacher is on loopback or named the
 * machine (a name is often not resolvable from a phone). NULL when there
 * is no class token (or no memory).
 */
static char *class_link(struct http_request *rq)
{
	struct http_server *srv = rq->srv;
	const char *host = http_header(rq, "Host");
	struct strbuf sb = STRBUF_INIT;

	if (!srv->class_token || !host || !*host)
		return NULL;
	if (srv->public_url) {
		strbuf_addstr(&sb, srv->public_url);
	} else {
		strbuf_addstr(&sb, srv->cfg.tls_cert ? "https://" : "http://");
		if ((loopback_host(host) || !address_host(host)) &&
		    srv->link_host && !loopback_host(srv->link_host)) {
			int v6 = strchr(srv->link_host, ':') != NULL;
			strbuf_addf(&sb, "%s%s%s:%d", v6 ? "[" : "",
				    srv->link_host, v6 ? "]" : "", srv->port);
		} else {
			strbuf_addstr(&sb, host);
		}
	}
	strbuf_addf(&sb, "/?token=%s", srv->class_token);
	return strbuf_detach(&sb);
}

/* The page a phone types the join code into, on the same host as the
 * class link (without a token). */
static char *join_link(const char *class_link)
{
	const char *q = strstr(class_link, "/?token=");
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, class_link,
		   q ? (size_t)(q - class_link) : strlen(class_link));
	strbuf_addstr(&sb, "/join");
	return strbuf_detach(&sb);
}

json_t *http_join_info(struct http_request *rq)
{
	char code[HTTP_JOIN_CODE_LEN + 1], *link, *join;
	json_t *doc = NULL;

	if (rq->role != HTTP_ROLE_TEACHER || !rq->srv->token ||
	    !http_join_code(rq, code))
		return NULL;
	link = class_link(rq);
	join = link ? join_link(link) : NULL;
	if (join)
		doc = json_pack("{s:s, s:s}", "link", join, "code", code);
	if (link)
		explicit_bzero(link, strlen(link));
	free(link);
	free(join);
	return doc;
}

enum MHD_Result http_whoami(struct http_request *rq)
{
	json_t *doc =
		json_pack("{s:s, s:s, s:b}", "role", auth_role_name(rq->role),
			  "name", rq->name, "sign_in", rq->srv->token != NULL);
	/* the class's token goes to the teacher alone: a student's page
	 * never learns it, nor the teacher's */
	if (doc && rq->role == HTTP_ROLE_TEACHER && rq->srv->token) {
		char *link = class_link(rq);
		if (link) {
			char *join = join_link(link);
			json_object_set_new(doc, "class_link",
					    json_string(link));
			char code[HTTP_JOIN_CODE_LEN + 1];
			if (join && http_join_code(rq, code)) {
				json_object_set_new(doc, "join_link",
						    json_string(join));
				json_object_set_new(doc, "join_code",
						    json_string(code));
			}
			free(join);
			explicit_bzero(link, strlen(link));
		}
		free(link);
	}
	return http_json(rq, MHD_HTTP_OK, doc);
}

enum MHD_Result http_rename(struct http_request *rq, const char *name)
{
	if (!rq->session[0] ||
	    sessions_rename(rq->srv->sessions, rq->session,
			    http_header(rq, HTTP_KEY_HEADER), name))
		return http_error(rq, MHD_HTTP_UNAUTHORIZED, NULL,
				  "sign in first: a name goes with a browser's "
				  "sign-in");
	snprintf(rq->name, sizeof(rq->name), "%s", name);
	return http_whoami(rq);
}

json_t *http_lobby(struct http_request *rq)
{
	static char names[SESSION_MAX][HTTP_NAME_LEN];
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	json_t *list = json_array();
	size_t got, n;

	if (!list)
		return NULL;
	pthread_mutex_lock(&mu);
	n = sessions_names(rq->srv->sessions, HTTP_ROLE_CLASS, names,
			   SESSION_MAX, &got);
	for (size_t i = 0; i < got; i++)
		json_array_append_new(list, json_string(names[i]));
	pthread_mutex_unlock(&mu);
	return json_pack("{s:I, s:o}", "signed_in", (json_int_t)n, "names",
			 list);
}

int http_client_sessions_max(struct http_request *rq)
{
	int n = rq->srv->cfg.max_client_sessions;

	return n > 0 ? n : SESSION_CLIENT_MAX;
}
