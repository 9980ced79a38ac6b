// LD_PRELOAD library that makes an AVX-512 machine look like an AVX2 + FMA one to any program:
// qrt's own dispatch (without QRT_MAX_ISA), oneDNN's, and peers that cannot be capped any other
// way (ONNX Runtime's MLAS reads CPUID itself). So "an AVX2-only CPU" can be measured and
// tested on whatever machine CI or a benchmark runs on.
//
// How: Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, where the CPU and hypervisor offer
// it: /proc/cpuinfo flag cpuid_fault) makes every CPUID instruction raise SIGSEGV. The handler
// runs the instruction with faulting briefly off, clears the AVX-512 feature bits (leaf 7:
// EBX F, DQ, IFMA, PF, ER, CD, BW, VL; ECX VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ; EDX 4VNNIW,
// 4FMAPS, VP2INTERSECT, FP16; subleaf 1 EAX BF16) and steps over it. Programs that install a
// SIGSEGV handler of their own (Node resets every signal at start-up, V8 traps WebAssembly
// faults) get it through `sigaction` below, and any other fault goes to theirs.
//
// QRT_HIDE_AVX512=vnni hides only AVX512_VNNI and AVX-VNNI instead: a CPU of the avx512 tier
// (Skylake-SP: AVX-512 F/BW/DQ/VL without VNNI), where ONNX Runtime's u8 x s8 kernels change too.
//
// The instructions themselves still run: this hides features, it does not trap their use.
// Where faulting is unavailable the library does nothing; QRT_HIDE_AVX512_REPORT=1 makes it say
// on stderr whether it is active. Faulting is reset by execve, so every process it should
// cover needs the library preloaded (LD_PRELOAD is inherited).
#include <asm/prctl.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
SigactionFn real_sigaction = nullptr;
struct sigaction program_action;  // what the program asked for SIGSEGV (zero: SIG_DFL)

constexpr uint32_t kLeaf7Ebx =
    (1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | (1u << 28) | (1u << 30) | (1u << 31);
constexpr uint32_t kLeaf7Ecx = (1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14);
constexpr uint32_t kLeaf7Edx = (1u << 2) | (1u << 3) | (1u << 8) | (1u << 23);
constexpr uint32_t kLeaf7Sub1Eax = 1u << 5;
// VNNI only: leaf 7 ECX AVX512_VNNI, subleaf 1 EAX AVX-VNNI.
constexpr uint32_t kVnniLeaf7Ecx = 1u << 11;
constexpr uint32_t kVnniLeaf7Sub1Eax = 1u << 4;
bool vnni_only = false;

bool SetCpuidFaulting(bool on) { return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1) == 0; }

void OnSegv(int sig, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* reg = uc->uc_mcontext.gregs;
  const auto* ip = reinterpret_cast<const uint8_t*>(reg[REG_RIP]);
  if (info->si_code == SI_KERNEL && ip[0] == 0x0F && ip[1] == 0xA2) {  // CPUID
    uint32_t a = uint32_t(reg[REG_RAX]), c = uint32_t(reg[REG_RCX]), b, d;
    const uint32_t leaf = a, subleaf = c;
    SetCpuidFaulting(false);
    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    SetCpuidFaulting(true);
    if (vnni_only) {
      if (leaf == 7 && subleaf == 0) c &= ~kVnniLeaf7Ecx;
      if (leaf == 7 && subleaf == 1) a &= ~kVnniLeaf7Sub1Eax;
    } else {
      if (leaf == 7 && subleaf == 0) b &= ~kLeaf7Ebx, c &= ~kLeaf7Ecx, d &= ~kLeaf7Edx;
      if (leaf == 7 && subleaf == 1) a &= ~kLeaf7Sub1Eax;
    }
    reg[REG_RAX] = a, reg[REG_RBX] = b, reg[REG_RCX] = c, reg[REG_RDX] = d;
    reg[REG_RIP] += 2;
    return;
  }
  if ((program_action.sa_flags & SA_SIGINFO) != 0 && program_action.sa_sigaction != nullptr) {
    program_action.sa_sigaction(sig, info, context);
    return;
  }
  if (program_action.sa_handler != SIG_DFL && program_action.sa_handler != SIG_IGN) {
    program_action.sa_handler(sig);
    return;
  }
  struct sigaction fallback;  // the fault repeats and ends the process as it would have
  std::memset(&fallback, 0, sizeof(fallback));
  fallback.sa_handler = SIG_DFL;
  real_sigaction(SIGSEGV, &fallback, nullptr);
}

SigactionFn RealSigaction() {
  if (real_sigaction == nullptr) real_sigaction = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  return real_sigaction;
}

__attribute__((constructor)) void Install() {
  const char* what = std::getenv("QRT_HIDE_AVX512");
  vnni_only = what != nullptr && std::strcmp(what, "vnni") == 0;
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = OnSegv;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  const bool active = RealSigaction()(SIGSEGV, &action, nullptr) == 0 && SetCpuidFaulting(true);
  const char* report = std::getenv("QRT_HIDE_AVX512_REPORT");
  if (report != nullptr && report[0] == '1') {
    std::fprintf(stderr, "hide_avx512: %s%s\n", active ? "active" : "inactive (no CPUID faulting here)",
                 active && vnni_only ? " (VNNI only)" : "");
  }
}

}  // namespace

// The program's SIGSEGV handler is kept aside and called for faults that are not CPUID: both
// ways of setting one are interposed (glibc's signal() calls its sigaction internally, past
// this one; GCC's cc1 uses it). Exported whatever the project's default visibility.
#define QRT_EXPORT extern "C" __attribute__((visibility("default")))

QRT_EXPORT int sigaction(int sig, const struct sigaction* action, struct sigaction* old) {
  if (sig != SIGSEGV) return RealSigaction()(sig, action, old);
  if (old != nullptr) *old = program_action;
  if (action != nullptr) program_action = *action;
  return 0;
}

QRT_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  struct sigaction action, old;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;  // signal()'s BSD semantics in glibc
  if (sigaction(sig, &action, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}
