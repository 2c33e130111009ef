# RocksDB's CMake build reads hintfs_FUNC here (its registrar, called when the
# object registry starts); the sources, flags and libraries come from
# CMakeLists.txt beside this file. RocksDB's make build is not supported:
hintfs_FUNC = hintfs_register_rocksdb
$(error hintfs: build RocksDB with CMake: cmake -DROCKSDB_PLUGINS=hintfs (rocksdb-plugin/hintfs/CMakeLists.txt))
