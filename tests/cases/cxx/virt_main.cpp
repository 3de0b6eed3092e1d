#include "virt.h"
#include <cstdio>
#include <memory>
#include <vector>

int main() {
    std::vector<std::unique_ptr<Animal>> zoo;
    zoo.emplace_back(make_dog());
    zoo.emplace_back(make_cat());
    zoo.emplace_back(make_sheepdog());
    for (const auto &a : zoo)
        std::printf("%s: %s\n", a->name.c_str(), a->describe().c_str());
    Animal *sd = zoo[2].get();
    Pet *p = as_pet(sd);
    Worker *w = as_worker(sd);
    std::printf("sheepdog as Pet: owner %s, as Worker: job %s, one Animal: %s\n",
                p->owner().c_str(), w->job().c_str(),
                static_cast<Animal *>(p) == static_cast<Animal *>(w) ? "yes" : "no");
    Named *n = make_robot_as_named();
    Speaker *s = robot_as_speaker(n);
    std::printf("robot: %s / %s, subobjects differ: %s\n", n->id().c_str(), s->speak().c_str(),
                static_cast<void *>(n) != static_cast<void *>(s) ? "yes" : "no");
    delete s;   // virtual destructor through the second base: a thunk
    zoo.clear();
    std::printf("done\n");
}
