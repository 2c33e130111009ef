// hintfs for LevelDB: a leveldb::Env whose files live in a mounted hintfs,
// with threads and clocks from leveldb::Env::Default().
//
//   std::unique_ptr<leveldb::Env> env;
//   leveldb::Status s = hintfs::NewHintLevelDbEnv("file:/var/lib/db/ssd.img", &env);
//   options.env = env.get();
//
// The spec is a mount spec (adapters/common/mount_registry.h); the Env keeps
// the filesystem mounted while it lives. Paths are paths inside hintfs.
#ifndef HINTFS_ADAPTERS_LEVELDB_HINTFS_LEVELDB_H_
#define HINTFS_ADAPTERS_LEVELDB_HINTFS_LEVELDB_H_

#include <memory>
#include <string>

#include <leveldb/env.h>

namespace hintfs {

// An Env whose file operations go to the mount of spec (AcquireMount); its
// errors come back as leveldb::Status::IOError or InvalidArgument.
leveldb::Status NewHintLevelDbEnv(const std::string& spec, std::unique_ptr<leveldb::Env>* env);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_LEVELDB_HINTFS_LEVELDB_H_
