// Args: the command line of one heed subcommand. Flags are `--name value` or `--name=value`;
// switches (--json, --help) take no value. Every mistake -- an unknown or repeated flag, a
// missing or malformed value, a number out of range -- is a heed::Error whose message names
// the subcommand and the flag, which main() prints as one line before exiting with status 2.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace heed {

class Args {
 public:
  // `may_be_empty`: the valued flags that take "" (documented so: sample's --prompt).
  Args(std::string command, const std::vector<std::string>& argv, const std::set<std::string>& valued,
       const std::set<std::string>& switches, int64_t max_positional = 0,
       const std::set<std::string>& may_be_empty = {});

  bool has(const std::string& flag) const;
  std::string text(const std::string& flag, const std::string& fallback) const;
  std::string choice(const std::string& flag, const std::string& fallback,
                     const std::vector<std::string>& choices) const;
  int64_t integer(const std::string& flag, int64_t fallback, int64_t lo, int64_t hi) const;
  real number(const std::string& flag, real fallback, real lo, real hi) const;  // lo < x <= hi
  // lo <= x <= hi: for a flag whose lower end is allowed (--clip 0, --temperature 0).
  real number_from(const std::string& flag, real fallback, real lo, real hi) const;
  // A comma-separated list of integers, each in [lo, hi].
  std::vector<int64_t> integers(const std::string& flag, const std::vector<int64_t>& fallback, int64_t lo,
                                int64_t hi) const;
  const std::vector<std::string>& positional() const { return positional_; }
  const std::string& command() const { return command_; }

  Error error(const std::string& message) const;  // "heed <command>: message"

 private:
  int64_t parse_int(const std::string& flag, const std::string& s, int64_t lo, int64_t hi) const;

  std::string command_;
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
  std::vector<std::string> positional_;
};

}  // namespace heed
