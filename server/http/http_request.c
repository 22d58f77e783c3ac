/* http_request.c - reading a request's head: its headers, query and the client's address */
#include "http_request.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "trust.h"

const char *http_header(struct http_request *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

const char *http_query(struct http_request *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND,
					   name);
}

void http_client_key(struct http_request *rq, unsigned char key[16], int net)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		rq->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (net)
		trust_client_key(sa, key);
	else
		trust_address_key(sa, key);
}

const char *http_client_address(struct http_request *rq, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		rq->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (len)
		buf[0] = '\0';
	if (!sa || !len)
		return buf;
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
			  buf, (socklen_t)len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)sa)->sin6_addr, buf,
			  (socklen_t)len);
	return buf;
}
