#ifndef RENDEZVOUS_CLINUX_SHIM_H
#define RENDEZVOUS_CLINUX_SHIM_H
// Linux-only system calls that Glibc's Swift module map leaves out.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// accept4 is declared only under _GNU_SOURCE, which Swift's Glibc module does not set.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
static inline int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

/// The CPUs the calling thread may run on (sched_getaffinity and CPU_COUNT are _GNU_SOURCE
/// too); 0 when the kernel does not say.
extern int sched_getaffinity(int pid, size_t cpusetsize, void *mask);
static inline int clinux_affinity_count(void) {
    unsigned long mask[16] = {0};  /* 1,024 CPUs, glibc's cpu_set_t */
    if (sched_getaffinity(0, sizeof mask, mask) != 0) return 0;
    int count = 0;
    for (int i = 0; i < 16; i++) count += __builtin_popcountl(mask[i]);
    return count;
}
#endif
