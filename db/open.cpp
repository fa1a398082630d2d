// Opening a database file: checks of the file before SQLite reads it, then creation or migration, and the
// error messages that name the file.
#include <unistd.h>

#include <SQLiteCpp/Backup.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "store.hpp"

namespace cutune {
namespace detail {
namespace {

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// Looks at the file header before SQLite does: a foreign non-SQLite file is refused untouched, and a
// truncated database is caught here because SQLite only notices missing pages when a query reaches them.
void check_header(const fs::path& path, std::uintmax_t size) {
  std::array<unsigned char, 100> header{};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DatabaseError("cannot open database " + quoted(path) + ": " + std::strerror(errno));
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  constexpr std::string_view kMagic{"SQLite format 3\0", 16};
  if (in.gcount() != static_cast<std::streamsize>(header.size()) ||
      std::string_view(reinterpret_cast<const char*>(header.data()), kMagic.size()) != kMagic) {
    throw DatabaseError(quoted(path) + " is not a cutune database (not SQLite)");
  }
  std::uintmax_t page_size = (std::uintmax_t{header[16]} << 8) | header[17];
  if (page_size == 1) page_size = 65536;
  const std::uint32_t pages = big_endian(&header[28]);
  // SQLite trusts the in-header page count only when the change counter matches "version valid for".
  const bool count_valid = pages != 0 && big_endian(&header[24]) == big_endian(&header[92]);
  // With a non-empty write-ahead log, the main file may legitimately lag behind the header's count.
  std::error_code ec;
  fs::path wal = path;
  wal += "-wal";
  const bool has_wal = fs::exists(wal, ec) && fs::file_size(wal, ec) > 0;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    throw DatabaseError("database " + quoted(path) + " is corrupt (invalid page size)");
  }
  if (!has_wal && (size % page_size != 0 || (count_valid && size < page_size * pages))) {
    throw DatabaseError("database " + quoted(path) + " is corrupt or truncated (" + std::to_string(size) +
                        " bytes, its header describes " + std::to_string(page_size * pages) + ")");
  }
}

// Returns whether the file is new (missing or empty), after refusing what cannot become a cutune database.
bool inspect_file(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) throw DatabaseError("cannot open database " + quoted(path) + ": it is a directory");
    const auto size = fs::file_size(path, ec);
    if (ec) throw DatabaseError("cannot open database " + quoted(path) + ": " + ec.message());
    if (size == 0) return true;
    check_header(path, size);
    return false;
  }
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    throw DatabaseError("cannot create database " + quoted(path) + ": directory " + quoted(parent) +
                        " does not exist");
  }
  if (::access(parent.c_str(), W_OK) != 0) {
    throw DatabaseError("cannot create database " + quoted(path) + ": " + std::strerror(errno));
  }
  return true;
}

std::unique_ptr<SQLite::Database> open_connection(const fs::path& path, bool fresh) {
  const int flags = SQLite::OPEN_READWRITE | (fresh ? SQLite::OPEN_CREATE : 0);
  try {
    return std::make_unique<SQLite::Database>(path.string(), flags, kBusyTimeoutMs);
  } catch (const SQLite::Exception& e) {
    const std::string verb = fresh ? "cannot create database " : "cannot open database ";
    throw DatabaseError(verb + quoted(path) + ": " + e.what());
  }
}

}  // namespace

std::string quoted(const fs::path& path) {
  // Appending rather than "'" + s + "'" sidesteps GCC 12's false -Wrestrict on that expression.
  std::string text(1, '\'');
  text += path.string();
  text += '\'';
  return text;
}

DatabaseError sqlite_error(const fs::path& path, std::string_view action, const SQLite::Exception& e) {
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_CORRUPT:
      return DatabaseError("database " + quoted(path) + " is corrupt or truncated (" + e.what() + ")");
    case SQLITE_NOTADB:
      return DatabaseError(quoted(path) + " is not a cutune database (not SQLite)");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return DatabaseError("database " + quoted(path) + " stayed locked by another process while " +
                           std::string(action));
    default:
      return DatabaseError("database " + quoted(path) + ": " + std::string(action) + " failed: " + e.what());
  }
}

SQLite::Database& connection(const std::unique_ptr<SQLite::Database>& db, const fs::path& path) {
  if (!db) throw DatabaseError("database " + quoted(path) + " was used after being moved from");
  return *db;
}

std::unique_ptr<SQLite::Database> open_store(const fs::path& path) {
  const bool in_memory = path.native() == ":memory:";
  const bool fresh = in_memory || inspect_file(path);
  auto db = open_connection(path, fresh);
  if (fresh) {
    try {
      write_transaction(*db, [&] { create_schema(*db); });
    } catch (const SQLite::Exception& e) {
      throw DatabaseError("cannot create database " + quoted(path) + ": " + e.what());
    }
  }
  const int schema = guarded(path, "reading its schema", [&] { return retry_busy([&] { return schema_version(*db, path); }); });
  refuse_newer(schema, path, "");
  guarded(path, "opening", [&] {
    // A read-only copy (an installed database) still answers queries; only writes will be refused.
    if (!in_memory && sqlite3_db_readonly(db->getHandle(), "main") == 0) {
      retry_busy([&] { db->execAndGet("PRAGMA journal_mode = WAL"); });
      // Each result is its own commit: in WAL mode, NORMAL writes it to the log without an fsync per commit. A
      // process killed at any point loses nothing committed; only a power loss may drop the last commits, and the
      // file stays consistent either way.
      db->exec("PRAGMA synchronous = NORMAL");
    }
  });
  if (schema < Database::kSchemaVersion) migrate(*db, path, schema);
  if (!guarded(path, "reading its schema", [&] { return missing_result_columns(*db); }).empty()) {
    add_result_columns(*db, path);
  }
  guarded(path, "opening", [&] { db->exec("PRAGMA foreign_keys = ON"); });
  return db;
}

std::unique_ptr<SQLite::Database> open_source(const fs::path& path, std::string_view purpose) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw DatabaseError("cannot " + std::string(purpose) + " " + quoted(path) + ": no such file");
  if (inspect_file(path)) throw DatabaseError("cannot " + std::string(purpose) + " " + quoted(path) + ": the file is empty");
  auto db = open_connection(path, false);
  const int schema = guarded(path, "reading its schema", [&] { return retry_busy([&] { return schema_version(*db, path); }); });
  refuse_newer(schema, path, "cannot " + std::string(purpose) + " ");
  const bool complete = guarded(path, "reading its schema", [&] { return missing_result_columns(*db).empty(); });
  if (schema == Database::kSchemaVersion && complete) return db;
  // An older file is migrated in a copy, so that reading it never changes it.
  auto copy = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  guarded(path, "reading it for " + std::string(purpose), [&] {
    SQLite::Backup backup(*copy, *db);
    backup.executeStep(-1);
  });
  if (schema < Database::kSchemaVersion) migrate(*copy, path, schema);
  add_result_columns(*copy, path);
  return copy;
}

}  // namespace detail
}  // namespace cutune
