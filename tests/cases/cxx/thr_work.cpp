// Work for thr_main.cpp's threads: a mutex-protected accumulator, a
// condition-variable hand-off and std::call_once.
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <queue>

namespace {
std::mutex mu;
std::condition_variable cv;
std::queue<int> queue;
bool closed = false;
long total = 0;
std::once_flag once;
int once_runs = 0;
}

void work_add(long v) {
    std::call_once(once, [] { once_runs++; });
    std::lock_guard<std::mutex> lock(mu);
    total += v;
}

long work_total() {
    std::lock_guard<std::mutex> lock(mu);
    return total;
}

int work_once_runs() { return once_runs; }

void queue_push(int v) {
    {
        std::lock_guard<std::mutex> lock(mu);
        queue.push(v);
    }
    cv.notify_one();
}

void queue_close() {
    {
        std::lock_guard<std::mutex> lock(mu);
        closed = true;
    }
    cv.notify_all();
}

// Returns false when the queue is closed and empty.
bool queue_pop(int *out) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [] { return !queue.empty() || closed; });
    if (queue.empty())
        return false;
    *out = queue.front();
    queue.pop();
    return true;
}
