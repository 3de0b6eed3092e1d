#include "virt.h"
#include <cstdio>

namespace {
struct Dog : Animal {
    Dog() : Animal("dog") {}
    ~Dog() override { std::printf("~Dog\n"); }
    std::string sound() const override { return "woof"; }
};
struct Cat : Animal {
    Cat() : Animal("cat") {}
    std::string sound() const override { return "meow"; }
    std::string describe() const override { return "the cat ignores you"; }
};
struct Robot : Named, Speaker {
    ~Robot() override { std::printf("~Robot (serial %d)\n", serial); }
    std::string id() const override { return "robot#" + std::to_string(serial) + "/vol" + std::to_string(volume); }
    std::string speak() const override { return "beep from " + id(); }
};
struct SheepDog : Pet, Worker {
    SheepDog() : Animal("sheepdog"), Pet("x"), Worker("y") {}
    ~SheepDog() override { std::printf("~SheepDog\n"); }
    std::string sound() const override { return "woof woof"; }
    std::string owner() const override { return "the farmer"; }
    std::string job() const override { return "herding"; }
};
}

Animal *make_dog() { return new Dog; }
Animal *make_cat() { return new Cat; }
Named *make_robot_as_named() {
    Robot *r = new Robot;
    r->serial = 7;
    r->volume = 11;
    return r;
}
Speaker *robot_as_speaker(Named *n) { return dynamic_cast<Speaker *>(n); }
Animal *make_sheepdog() { return new SheepDog; }
Pet *as_pet(Animal *a) { return dynamic_cast<Pet *>(a); }
Worker *as_worker(Animal *a) { return dynamic_cast<Worker *>(a); }
