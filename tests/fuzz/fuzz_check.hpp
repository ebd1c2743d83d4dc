#pragma once
// What a fuzz target asserts about a reader's output: a violated property stops the run with a trap,
// which libFuzzer reports as a finding and saves the input that caused it.
#define FUZZ_CHECK(condition) \
  do {                        \
    if (!(condition)) __builtin_trap(); \
  } while (0)
