// A data race for ThreadSanitizer: two threads increment a plain global.
#include <pthread.h>
#include <stdio.h>

static int shared_counter;

__attribute__((noinline)) void *racy_increment(void *arg) {
    for (int i = 0; i < 1000; i++)
        shared_counter++;
    return arg;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, racy_increment, NULL);
    pthread_create(&b, NULL, racy_increment, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("threads joined\n");
    return 0;
}
