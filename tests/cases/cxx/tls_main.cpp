#include "tls.h"
#include <cstdio>
#include <thread>

static thread_local std::string tl_name = "unnamed";
void set_thread_name(const std::string &name) { tl_name = name; }
const std::string &thread_name() { return tl_name; }

namespace {
struct Local {
    int id;
    explicit Local(int id) : id(id) { std::printf("  Local(%d) in %s\n", id, thread_name().c_str()); }
    ~Local() { std::printf("  ~Local(%d) in %s\n", id, thread_name().c_str()); }
};
}

void report(const char *where) {
    thread_local Local local(tl_plain);
    tl_tracked.hits++;
    tl_plain++;
    std::printf("  %s: %s hits=%d tl_plain=%d local=%d\n", where, tl_tracked.owner.c_str(),
                tl_tracked.hits, tl_plain, local.id);
}

int main() {
    set_thread_name("main");
    report("main");
    for (int i = 1; i <= 3; i++) {
        std::printf("start thread %d\n", i);
        std::thread t([i] {
            set_thread_name("thread" + std::to_string(i));
            tl_plain = 10 * i;
            for (int k = 0; k < i; k++)
                report("worker");
        });
        t.join();
        std::printf("joined thread %d\n", i);
    }
    std::thread quiet([] { tl_plain = 99; });  // never touches tl_tracked: no ctor or dtor
    quiet.join();
    std::printf("main exits, tl_plain=%d\n", tl_plain);
}
