// The run-time half of bench/aa-ceiling (see plugin.cpp): linked into a program the
// `aat-instrument` pass rewrote, it records which pairs of a function's loads and stores
// touch the same byte of the same object while the program runs, and writes them to the
// file $AAT_OUT (appended to, so that several runs of a workload add up) at exit.
//
// "The same object": memory becomes a new object when an `alloca` runs, an allocation call
// returns it or `free` is called on it; every byte remembers the set of accesses that
// touched it since then. Sets are interned (a byte holds a number), and the step "set L
// touched by access A" is memoized, so that the pairs it creates are found once.
//
// Each access also records the abstract objects it touched: the global variable, `alloca`
// or allocation call that made the memory (0: memory the program did not make, or made
// in code that is not instrumented). An allocation call's object is told apart by the two
// call sites above the function making the call, as rld's heap cloning tells apart the
// callers of allocation wrappers.
#include <execinfo.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

constexpr unsigned PageBits = 12;
constexpr uint64_t PageSize = 1ull << PageBits;

struct VecHash {
    size_t operator()(const std::vector<uint64_t> &V) const {
        uint64_t H = 0x9e3779b97f4a7c15ull;
        for (uint64_t X : V) H = (H ^ X) * 0x100000001b3ull;
        return H;
    }
};

struct StepKey {
    uint32_t Set;
    uint64_t Access;
    bool operator==(const StepKey &O) const { return Set == O.Set && Access == O.Access; }
};
struct StepHash {
    size_t operator()(const StepKey &K) const {
        return (K.Access * 0x9e3779b97f4a7c15ull) ^ K.Set;
    }
};

struct Tracer {
    std::unordered_map<uint64_t, uint32_t *> Pages;
    uint64_t LastPage = ~0ull;
    uint32_t *LastShadow = nullptr;
    std::vector<std::vector<uint64_t>> Sets{{}};
    std::unordered_map<std::vector<uint64_t>, uint32_t, VecHash> Interned;
    std::unordered_map<StepKey, uint32_t, StepHash> Steps;
    std::unordered_set<uint64_t> Overlaps; // function << 48 | first << 24 | second
    std::unordered_set<uint64_t> Executed;
    uint64_t LastAccess = ~0ull;
    struct Instance {
        uint64_t End, Site;
    };
    std::map<uint64_t, Instance> Live; // by start address
    // Per access, the objects it touched and, per object, the 8-byte slots (offsets from
    // the start of the memory the object made) it touched; past MaxSlots, "all of them".
    static constexpr size_t MaxSlots = 64;
    struct Touched {
        uint64_t Site;
        bool All = false;
        std::vector<uint32_t> Slots;
    };
    std::unordered_map<uint64_t, std::vector<Touched>> Sites;
    uint64_t LastSiteAccess = ~0ull, LastSite = ~0ull, LastSlot = ~0ull;

    void touchedSite(uint64_t Id, uint64_t Addr, uint64_t Size) {
        uint64_t Site = 0, First = 0, Last = 0;
        auto It = Live.upper_bound(Addr);
        if (It != Live.begin() && Addr < std::prev(It)->second.End) {
            --It;
            Site = It->second.Site;
            First = (Addr - It->first) / 8;
            Last = (Addr + Size - 1 - It->first) / 8;
        }
        if (Id == LastSiteAccess && Site == LastSite && First == LastSlot) return;
        LastSiteAccess = Id, LastSite = Site, LastSlot = First;
        std::vector<Touched> &V = Sites[Id];
        auto T = std::find_if(V.begin(), V.end(), [&](auto &X) { return X.Site == Site; });
        if (T == V.end()) T = V.insert(V.end(), Touched{Site});
        for (uint64_t Slot = First; Slot <= Last && !T->All; ++Slot) {
            if (std::find(T->Slots.begin(), T->Slots.end(), Slot) != T->Slots.end()) continue;
            if (T->Slots.size() == MaxSlots) T->All = true, T->Slots.clear();
            else T->Slots.push_back(uint32_t(Slot));
        }
    }

    void instance(uint64_t Addr, uint64_t Size, uint64_t Site) {
        uint64_t End = Addr + Size;
        auto It = Live.upper_bound(Addr);
        if (It != Live.begin() && std::prev(It)->second.End > Addr) --It;
        while (It != Live.end() && It->first < End) It = Live.erase(It);
        if (Site && Size) Live[Addr] = Instance{End, Site};
        LastSiteAccess = ~0ull;
    }

    uint32_t *shadow(uint64_t Page, bool Create) {
        if (Page == LastPage) return LastShadow;
        auto It = Pages.find(Page);
        uint32_t *S = nullptr;
        if (It != Pages.end()) S = It->second;
        else if (Create) S = Pages[Page] = static_cast<uint32_t *>(calloc(PageSize, 4));
        if (S) LastPage = Page, LastShadow = S;
        return S;
    }

    uint32_t step(uint32_t Set, uint64_t Access) {
        auto [It, New] = Steps.try_emplace(StepKey{Set, Access}, 0);
        if (!New) return It->second;
        std::vector<uint64_t> Next = Sets[Set];
        auto Pos = std::lower_bound(Next.begin(), Next.end(), Access);
        if (Pos != Next.end() && *Pos == Access) return It->second = Set;
        uint64_t Fn = Access >> 32;
        for (uint64_t Other : Next)
            if (Other >> 32 == Fn) {
                uint64_t A = std::min(Other, Access) & 0xffffffff;
                uint64_t B = std::max(Other, Access) & 0xffffffff;
                Overlaps.insert(Fn << 48 | A << 24 | B);
            }
        Next.insert(Pos, Access);
        auto [Slot, Fresh] = Interned.try_emplace(Next, uint32_t(Sets.size()));
        if (Fresh) Sets.push_back(std::move(Next));
        return It->second = Slot->second;
    }

    void access(uint64_t Id, uint64_t Addr, uint64_t Size) {
        if (Id != LastAccess) Executed.insert(Id), LastAccess = Id;
        touchedSite(Id, Addr, Size);
        uint32_t From = ~0u, To = 0;
        for (uint64_t A = Addr; A < Addr + Size; ++A) {
            uint32_t *S = shadow(A >> PageBits, true);
            uint32_t &Byte = S[A & (PageSize - 1)];
            if (Byte != From) From = Byte, To = step(Byte, Id);
            Byte = To;
        }
    }

    void fresh(uint64_t Addr, uint64_t Size) {
        uint64_t End = Addr + Size;
        for (uint64_t A = Addr; A < End;) {
            uint64_t PageEnd = (A | (PageSize - 1)) + 1;
            uint64_t Stop = std::min(End, PageEnd);
            if (uint32_t *S = shadow(A >> PageBits, false))
                std::fill(S + (A & (PageSize - 1)), S + (A & (PageSize - 1)) + (Stop - A), 0);
            A = Stop;
        }
    }

    ~Tracer() {
        const char *Path = getenv("AAT_OUT");
        if (!Path) return;
        FILE *F = fopen(Path, "a");
        if (!F) return;
        for (uint64_t E : Executed)
            fprintf(F, "E %llu %llu\n", (unsigned long long)(E >> 32),
                    (unsigned long long)(E & 0xffffffff));
        for (uint64_t O : Overlaps)
            fprintf(F, "O %llu %llu %llu\n", (unsigned long long)(O >> 48),
                    (unsigned long long)(O >> 24 & 0xffffff),
                    (unsigned long long)(O & 0xffffff));
        for (auto &[Id, V] : Sites) {
            fprintf(F, "S %llu %llu", (unsigned long long)(Id >> 32),
                    (unsigned long long)(Id & 0xffffffff));
            for (Touched &T : V) {
                fprintf(F, " %llx:", (unsigned long long)T.Site);
                if (T.All) fputc('*', F);
                for (size_t I = 0; I < T.Slots.size(); ++I)
                    fprintf(F, I ? ",%u" : "%u", T.Slots[I]);
            }
            fputc('\n', F);
        }
        fclose(F);
    }
};

// Constructed on first use and never destroyed by C++; written out by an atexit handler
// (registered on first use, so that it runs after the program's own handlers).
Tracer *T;
void writeOut() { delete T; T = nullptr; }
Tracer &tracer() {
    if (!T) {
        T = new Tracer;
        atexit(writeOut);
    }
    return *T;
}

} // namespace

extern "C" {
void __aat_access(uint64_t Id, const void *P, uint64_t Size) {
    tracer().access(Id, uint64_t(P), Size);
}
void __aat_fresh(const void *P, uint64_t Size, uint64_t Site) {
    tracer().fresh(uint64_t(P), Size);
    tracer().instance(uint64_t(P), Size, Site);
}
void __aat_heap(void *P, uint64_t Site) {
    if (!P) return;
    // Frames: this one, the function calling the allocator, then its callers.
    void *Frames[4];
    int N = backtrace(Frames, 4);
    for (int I = 2; I < N; ++I)
        Site = (Site ^ uint64_t(Frames[I])) * 0x100000001b3ull | 3ull << 60;
    __aat_fresh(P, malloc_usable_size(P), Site);
}
void __aat_free(void *P) {
    if (P) __aat_fresh(P, malloc_usable_size(P), 0);
}
}
