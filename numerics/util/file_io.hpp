#pragma once
// Reading and writing the project's files, with the limits that keep hostile input harmless.
//
// Every JSON document the toolkit reads (weights, inputs, results, baselines, checkpoint lines)
// goes through parse_json_text: nesting deeper than kMaxJsonDepth and every parse or range error
// (a literal such as 1e999) become an InputError naming the argument, never a crash or exit 3.
// Writes go to a new temporary file (mkostemp: O_CREAT | O_EXCL, a random name), then are renamed into place,
// so a reader never sees half a file, two writers never share a temporary, and a symbolic link planted in an
// output folder is never written through. Files the toolkit keeps in an output folder (checkpoints, the lock)
// are opened with O_NOFOLLOW: a link there is refused with an InputError.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace infoflow {

/// Deepest nesting of arrays and objects accepted in any JSON input (the formats need at most 6).
inline constexpr int kMaxJsonDepth = 64;
/// The largest JSON file read (4 GiB): reading allocates the file's size, so a file larger than any the toolkit writes
/// is refused before anything is read (the largest legitimate files are certify checkpoints of very long searches).
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{1} << 32;

/// Parses `text`; throws InputError(argument, "<what> is not valid JSON (...)") on any error,
/// including nesting deeper than kMaxJsonDepth.
nlohmann::json parse_json_text(const std::string& text, const std::string& argument, const std::string& what);

/// Like parse_json_text, but returns a discarded value (is_discarded()) instead of throwing.
nlohmann::json try_parse_json_text(const std::string& text);

/// Reads and parses a regular file; a missing file, a folder or unreadable text is an InputError.
nlohmann::json read_json_file(const std::string& path, const std::string& argument);

/// Writes to a temporary file and renames it, so a reader never sees half a file. Folders on the
/// way are created; a path that cannot be written is an InputError naming `argument`.
void write_text_file_atomic(const std::string& path, const std::string& text, const std::string& argument = "--out");
void write_json_file(const std::string& path, const nlohmann::json& j, const std::string& argument = "--out");

/// Opens a file the toolkit keeps in an output folder (open(2) flags such as O_RDONLY, O_WRONLY | O_APPEND |
/// O_CREAT). Returns -1 when it does not exist (and O_CREAT was not given); throws InputError(argument) when PATH
/// is a symbolic link, not a regular file, not the user's own, has other hard links, or cannot be opened.
int open_own_file(const std::string& path, int flags, const std::string& argument);
/// The whole content of a file opened by open_own_file (at most kMaxJsonFileBytes).
std::string read_own_file(int fd, const std::string& path, const std::string& argument);

/// Creates `dir` (and its parents) or throws InputError(argument, ...) saying why it cannot. Inside a locked output
/// folder (OutputFolderLock) no folder below the locked one may be a symbolic link: a link planted there (OUT/plots
/// pointing elsewhere) is refused, never written through. The locked folder itself is the user's choice and may be one.
void ensure_directory(const std::string& dir, const std::string& argument);

/// Holds an exclusive advisory lock (flock) on DIR/.infoflow-lock for the lifetime of the object,
/// so two runs never write one output folder at once. A second run gets InputError(argument). While held, DIR is an
/// output root: folders below it that are symbolic links are refused by every write (ensure_directory).
class OutputFolderLock {
 public:
  OutputFolderLock(const std::string& dir, const std::string& argument);
  ~OutputFolderLock();
  OutputFolderLock(const OutputFolderLock&) = delete;
  OutputFolderLock& operator=(const OutputFolderLock&) = delete;

 private:
  int fd_ = -1;
  std::string root_;  // the registered output root ("" under MPI workers)
};

}  // namespace infoflow
