#ifndef RENDEZVOUS_CLINUX_SHIM_H
#define RENDEZVOUS_CLINUX_SHIM_H
// Linux-only system calls that Glibc's Swift module map leaves out.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// accept4 is declared only under _GNU_SOURCE, which Swift's Glibc module does not set.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
static inline int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }
#endif
