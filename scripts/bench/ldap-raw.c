/* Raw libldap load against a directory, the baseline for the broker's LDAP login overhead.
 * Each thread keeps one connection and repeats, for `seconds`:
 *   mode "bind":  a simple bind as the user;
 *   mode "login": what the broker's search-then-bind does: (service connection) search the user,
 *                 search its groups, then (user connection) bind as the user.
 * Usage: ldap-raw URL MODE THREADS SECONDS
 * Prints "operations/s p50_ms p99_ms" (one login = one operation; latencies over every operation,
 * so with one thread the p50 is comparable with wrk's p50 of one broker login at a time). */
#include <ldap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *url, *mode;
static int seconds;
static const char *base = "dc=example,dc=org";

#define MAX_SAMPLES 2000000
static double *samples;      /* per-operation seconds, shared by the threads */
static long sample_count;
static pthread_mutex_t sample_lock = PTHREAD_MUTEX_INITIALIZER;

static void record(double seconds_taken) {
    pthread_mutex_lock(&sample_lock);
    if (sample_count < MAX_SAMPLES) samples[sample_count++] = seconds_taken;
    pthread_mutex_unlock(&sample_lock);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile_ms(double fraction) {
    if (sample_count == 0) return 0;
    long index = (long)(fraction * (sample_count - 1));
    return samples[index] * 1000;
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static LDAP *open_bound(const char *dn, const char *pw) {
    LDAP *ld; int v3 = LDAP_VERSION3;
    if (ldap_initialize(&ld, url) != LDAP_SUCCESS) exit(1);
    ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v3);
    struct berval cred = { strlen(pw), (char *)pw };
    if (ldap_sasl_bind_s(ld, dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL) != LDAP_SUCCESS) { fprintf(stderr, "bind failed\n"); exit(1); }
    return ld;
}

static int search(LDAP *ld, const char *b, const char *filter, char **attrs) {
    LDAPMessage *res = NULL;
    int rc = ldap_search_ext_s(ld, b, LDAP_SCOPE_SUBTREE, filter, attrs, 0, NULL, NULL, NULL, 100, &res);
    int n = ldap_count_entries(ld, res);
    ldap_msgfree(res);
    return rc == LDAP_SUCCESS ? n : -1;
}

static void *worker(void *arg) {
    long *count = arg;
    const char *user = "uid=alice,ou=people,dc=example,dc=org";
    LDAP *service = open_bound("cn=readonly,dc=example,dc=org", "readonlypw");
    LDAP *binder = open_bound(user, "alicepw");
    char *user_attrs[] = { "uid", "mail", "cn", "memberOf", NULL };
    char *group_attrs[] = { "cn", NULL };
    struct berval cred = { 7, "alicepw" };
    double end = now() + seconds;
    while (now() < end) {
        double started = now();
        if (strcmp(mode, "login") == 0) {
            if (search(service, "ou=people,dc=example,dc=org", "(uid=alice)", user_attrs) != 1) exit(2);
            if (search(service, "ou=groups,dc=example,dc=org",
                       "(|(member=uid=alice,ou=people,dc=example,dc=org)(uniqueMember=uid=alice,ou=people,dc=example,dc=org)(memberUid=alice))",
                       group_attrs) < 1) exit(3);
        }
        if (ldap_sasl_bind_s(binder, user, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL) != LDAP_SUCCESS) exit(4);
        record(now() - started);
        (*count)++;
    }
    ldap_unbind_ext_s(service, NULL, NULL);
    ldap_unbind_ext_s(binder, NULL, NULL);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s URL bind|login THREADS SECONDS\n", argv[0]); return 64; }
    url = argv[1]; mode = argv[2]; seconds = atoi(argv[4]);
    int threads = atoi(argv[3]);
    samples = malloc(sizeof(double) * MAX_SAMPLES);
    if (samples == NULL) return 1;
    pthread_t ids[64]; long counts[64] = {0};
    for (int i = 0; i < threads && i < 64; i++) pthread_create(&ids[i], NULL, worker, &counts[i]);
    long total = 0;
    for (int i = 0; i < threads && i < 64; i++) { pthread_join(ids[i], NULL); total += counts[i]; }
    qsort(samples, sample_count, sizeof(double), by_value);
    printf("%.0f %.3f %.3f\n", (double)total / seconds, percentile_ms(0.50), percentile_ms(0.99));
    (void)base;
    return 0;
}
