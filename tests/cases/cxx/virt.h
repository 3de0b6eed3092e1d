// Virtual dispatch across objects: bases in virt_base.cpp, derived classes in
// virt_derived.cpp, calls through base pointers in virt_main.cpp.
#pragma once
#include <string>

struct Animal {
    explicit Animal(std::string n);
    virtual ~Animal();
    virtual std::string sound() const = 0;
    virtual std::string describe() const;   // calls sound() virtually
    std::string name;
};
struct Named {
    virtual ~Named();
    virtual std::string id() const;
    int serial = 100;
};
struct Speaker {
    virtual ~Speaker();
    virtual std::string speak() const = 0;
    int volume = 3;
};
// Virtual inheritance: one Animal subobject shared by both paths.
struct Pet : virtual Animal {
    explicit Pet(std::string n) : Animal(n) {}
    virtual std::string owner() const;
};
struct Worker : virtual Animal {
    explicit Worker(std::string n) : Animal(n) {}
    virtual std::string job() const;
};

Animal *make_dog();
Animal *make_cat();
Named *make_robot_as_named();    // Robot : Named, Speaker (this-adjusting thunks)
Speaker *robot_as_speaker(Named *);
Animal *make_sheepdog();          // SheepDog : Pet, Worker (virtual base)
Pet *as_pet(Animal *);
Worker *as_worker(Animal *);
