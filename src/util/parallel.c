/*
 * parallel.c - independent pieces of work over the CPUs (parallel.h).
 */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "banned.h"

typedef struct job {
    atomic_size_t next;
    size_t n;
    void (*fn)(void *, size_t);
    void *payload;
} job;

static void *work(void *arg)
{
    job *j = arg;
    size_t i;

    while ((i = atomic_fetch_add(&j->next, 1)) < j->n)
        j->fn(j->payload, i);
    return NULL;
}

void pg_parallel_for(size_t n, void (*fn)(void *payload, size_t i),
                     void *payload)
{
    pthread_t threads[PG_PARALLEL_MAX];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t want = cpus > 1 ? (size_t)cpus : 1, started = 0, k;
    job j;

    atomic_init(&j.next, 0);
    j.n = n;
    j.fn = fn;
    j.payload = payload;
    if (want > PG_PARALLEL_MAX)
        want = PG_PARALLEL_MAX;
    if (want > n)
        want = n;
    for (k = 1; k < want; k++)
        if (pthread_create(&threads[started], NULL, work, &j) == 0)
            started++;
    work(&j);
    for (k = 0; k < started; k++)
        pthread_join(threads[k], NULL);
}
