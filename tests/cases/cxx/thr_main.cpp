#include <atomic>
#include <stdexcept>
#include <cstdio>
#include <future>
#include <thread>
#include <vector>

void work_add(long v);
long work_total();
int work_once_runs();
void queue_push(int v);
void queue_close();
bool queue_pop(int *out);

static long sum_range(long from, long to) {
    long s = 0;
    for (long i = from; i < to; i++)
        s += i;
    return s;
}

int main() {
    std::vector<std::thread> threads;
    std::atomic<int> started{0};
    for (int t = 0; t < 4; t++)
        threads.emplace_back([t, &started] {
            started++;
            for (int i = 1; i <= 1000; i++)
                work_add(t * 1000 + i);
        });
    for (auto &t : threads)
        t.join();
    std::printf("threads started: %d, total: %ld, call_once ran %d time(s)\n", started.load(),
                work_total(), work_once_runs());

    std::atomic<long> consumed{0};
    std::vector<std::thread> consumers;
    for (int c = 0; c < 3; c++)
        consumers.emplace_back([&consumed] {
            int v;
            while (queue_pop(&v))
                consumed += v;
        });
    for (int i = 1; i <= 500; i++)
        queue_push(i);
    queue_close();
    for (auto &t : consumers)
        t.join();
    std::printf("consumed: %ld\n", consumed.load());

    std::vector<std::future<long>> parts;
    for (long k = 0; k < 4; k++)
        parts.push_back(std::async(std::launch::async, sum_range, k * 250000, (k + 1) * 250000));
    long s = 0;
    for (auto &f : parts)
        s += f.get();
    std::printf("async sum: %ld\n", s);

    std::promise<int> p;
    std::future<int> f = p.get_future();
    std::thread setter([&p] { p.set_exception(std::make_exception_ptr(std::runtime_error("promise broken"))); });
    setter.join();
    try {
        f.get();
    } catch (const std::exception &e) {
        std::printf("future rethrew: %s\n", e.what());
    }
    std::printf("hardware_concurrency > 0: %s\n",
                std::thread::hardware_concurrency() > 0 ? "yes" : "no");
}
