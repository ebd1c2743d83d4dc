#include "numerics/util/file_io.hpp"
#include "numerics/sweep/distribution.hpp"

#include "numerics/util/errors.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace infoflow {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Parses with a depth guard. The parser itself is iterative; the guard keeps every later recursive
// walk (copies, destructors, our own readers) shallow. Returns a discarded value on any error and
// says why in `error`.
json parse_guarded(const std::string& text, std::string& error) {
  bool too_deep = false;
  const json::parser_callback_t guard = [&too_deep](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth) too_deep = true;
    return !too_deep;
  };
  try {
    json j = json::parse(text, guard, /*allow_exceptions=*/true);
    if (too_deep) {
      error = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return json(json::value_t::discarded);
    }
    return j;
  } catch (const json::exception& e) {
    error = too_deep ? "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels" : std::string(e.what());
    return json(json::value_t::discarded);
  }
}

std::atomic<unsigned long> temp_counter{0};

std::string temp_name(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++temp_counter);
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& argument, const std::string& what) {
  std::string error;
  json j = parse_guarded(text, error);
  if (j.is_discarded()) throw InputError(argument, what + " is not valid JSON (" + error + ")");
  return j;
}

json try_parse_json_text(const std::string& text) {
  std::string error;
  return parse_guarded(text, error);
}

json read_json_file(const std::string& path, const std::string& argument) {
  std::error_code ec;
  if (path.empty()) throw InputError(argument, "expected a file name, got an empty string");
  if (!fs::exists(path, ec)) throw InputError(argument, "cannot open file '" + path + "' (it does not exist)");
  if (!fs::is_regular_file(path, ec)) throw InputError(argument, "'" + path + "' is not a regular file");
  if (const auto bytes = fs::file_size(path, ec); !ec && bytes > kMaxJsonFileBytes)
    throw InputError(argument, "'" + path + "' is " + std::to_string(bytes) + " bytes; expected a JSON file of at most " +
                                   std::to_string(kMaxJsonFileBytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(argument, "cannot open file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(argument, "cannot read file '" + path + "'");
  return parse_json_text(ss.str(), argument, "'" + path + "'");
}

void ensure_directory(const std::string& dir, const std::string& argument) {
  if (dir.empty()) throw InputError(argument, "expected a folder name, got an empty string");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(argument, "cannot create the folder '" + dir + "'" + (ec ? " (" + ec.message() + ")" : ""));
}

void write_text_file_atomic(const std::string& path, const std::string& text, const std::string& argument) {
  if (path.empty()) throw InputError(argument, "expected a file name, got an empty string");
  const fs::path p(path);
  if (p.has_parent_path()) ensure_directory(p.parent_path().string(), argument);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw InputError(argument, "'" + path + "' is a folder, expected a file name");
  const std::string tmp = temp_name(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(argument, "cannot write '" + tmp + "'");
    out << text;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw InputError(argument, "failed writing '" + tmp + "'");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw InputError(argument, "cannot rename '" + tmp + "' to '" + path + "' (" + ec.message() + ")");
  }
}

void write_json_file(const std::string& path, const json& j, const std::string& argument) {
  write_text_file_atomic(path, j.dump(2) + "\n", argument);
}

OutputFolderLock::OutputFolderLock(const std::string& dir, const std::string& argument) {
  // Under MPI only the root writes results, so only the root holds the folder (workers write only the files of
  // the points they compute, which no other process writes).
  if (!is_root_process()) return;
  ensure_directory(dir, argument);
  const std::string lock_path = (fs::path(dir) / ".infoflow-lock").string();
  fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(argument, "cannot create the lock file '" + lock_path + "'");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(argument, "another infoflow-verify run is writing to '" + dir +
                                   "' (lock file .infoflow-lock is held); wait for it to finish or choose another --out");
  }
}

OutputFolderLock::~OutputFolderLock() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

}  // namespace infoflow
