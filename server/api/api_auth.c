/* api_auth.c - /api/session: signing a browser in with a link's token or the join code, its name, signing out, who it is */
#include "api_auth.h"
#include "api_body.h"

#include <string.h>

#include "display_name.h"

/*
 * 0 when name may be shown to others (display_name_check; "" is no name);
 * else -EINVAL with err saying why. For a rename, "" is refused: a name
 * is what it sets.
 */
static int api_name_check(const char *name, int rename, struct errinfo *err)
{
	if (rename && !*name)
		return errinfo_set(err, "name",
				   "name is empty (give at least one letter, "
				   "digit or punctuation mark)");
	return display_name_check(name, "name", "name", err);
}

static const struct api_field sign_in_fields[] = {
	{"token", API_STRING, 0, "the teacher's token, a string"},
	{"code", API_STRING, 0, "the join code, a string of digits"},
	{"name", API_STRING, 0, "the name to show, up to 48 bytes"},
	{NULL, 0, 0, NULL}};

enum MHD_Result api_sign_in(struct http_request *rq, void *ctx)
{
	enum MHD_Result ret = MHD_NO;
	json_t *doc = http_body_json(rq, &ret);
	const char *token = NULL, *code = NULL, *name = "";
	json_error_t jerr;
	struct errinfo err = {.field = ""};

	(void)ctx;
	if (!doc)
		return ret;
	if (api_body_check(doc, sign_in_fields, &err) ||
	    json_unpack_ex(doc, &jerr, 0, "{s?:s, s?:s, s?:s}", "token", &token,
			   "code", &code, "name", &name)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, err.field,
				 "sign-in body: %s", err.msg);
	} else if (!token == !code) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, NULL,
				 "sign-in body: %s (send {\"token\": \"...\", "
				 "\"name\": \"...\"} or {\"code\": \"123456\", "
				 "\"name\": \"...\"}, name optional)",
				 token && code ? "give 'token' or 'code', not "
						 "both"
					       : "'token' or 'code' is needed");
	} else if (api_name_check(name, 0, &err)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, err.field, "%s",
				 err.msg);
	} else if (code) {
		ret = http_join(rq, code, name);
	} else {
		ret = http_sign_in(rq, token, name);
	}
	json_decref(doc);
	return ret;
}

static const struct api_field rename_fields[] = {
	{"name", API_STRING, API_REQUIRED, "the name to show, up to 48 bytes"},
	{NULL, 0, 0, NULL}};

enum MHD_Result api_rename(struct http_request *rq, void *ctx)
{
	enum MHD_Result ret = MHD_NO;
	json_t *doc = http_body_json(rq, &ret);
	const char *name = NULL;
	json_error_t jerr;
	struct errinfo err = {.field = ""};

	(void)ctx;
	if (!doc)
		return ret;
	if (api_body_check(doc, rename_fields, &err) ||
	    json_unpack_ex(doc, &jerr, 0, "{s:s}", "name", &name))
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, err.field,
				 "%s (send {\"name\": \"...\"})", err.msg);
	else if (api_name_check(name, 1, &err))
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, err.field, "%s",
				 err.msg);
	else
		ret = http_rename(rq, name);
	json_decref(doc);
	return ret;
}

enum MHD_Result api_sign_out(struct http_request *rq, void *ctx)
{
	enum MHD_Result ret;

	(void)ctx;
	if (http_body_none(rq, &ret))
		return ret;
	return http_sign_out(rq);
}

enum MHD_Result api_whoami(struct http_request *rq, void *ctx)
{
	(void)ctx;
	return http_whoami(rq);
}
