#include "engine.h"
#include "platform.h"

namespace engine {

struct Task {
    int id;
    int weight;
    int done;

    int cost() const { return weight * 3 + id; }
};

template <typename T, typename Fn>
inline T fold(const T *items, int count, T init, Fn fn)
{
    for (int i = 0; i < count; i++)
        init = fn(init, items[i]);
    return init;
}

class Scheduler {
public:
    Scheduler(Task *tasks, int count) : tasks_(tasks), count_(count), executed_(0) {}

    __attribute__((noinline)) int run(int rounds);

private:
    template <typename Fn>
    int for_each_ready(Fn fn)
    {
        int visited = 0;
        for (int i = 0; i < count_; i++) {
            if (!tasks_[i].done) {
                fn(tasks_[i]);
                visited++;
            }
        }
        return visited;
    }

    __attribute__((noinline)) int execute(Task &task);

    int total_weight() const
    {
        int weights[16];
        for (int i = 0; i < count_ && i < 16; i++)
            weights[i] = tasks_[i].weight;
        return fold(weights, count_ < 16 ? count_ : 16, 0,
                    [](int acc, int w) { return acc + w; });
    }

    Task *tasks_;
    int count_;
    int executed_;
};

int Scheduler::execute(Task &task)
{
    int budget = task.cost();
    while (budget > 0) {
        sched_yield();
        budget -= 7;
    }
    task.done = 1;
    return ++executed_;
}

int Scheduler::run(int rounds)
{
    int ran = 0;
    for (int round = 0; round < rounds; round++) {
        int limit = total_weight() / (round + 1);
        ran += for_each_ready([this, limit](Task &task) {
            if (task.weight <= limit)
                execute(task);
        });
    }
    return ran + executed_;
}

} // namespace engine

extern "C" int engine_run(int rounds)
{
    engine::Task tasks[6];
    for (int i = 0; i < 6; i++) {
        tasks[i].id = i;
        tasks[i].weight = (i * 5) % 11 + 1;
        tasks[i].done = 0;
    }
    engine::Scheduler scheduler(tasks, 6);
    return scheduler.run(rounds);
}
