"""libcooplink through ctypes: the catalog, symbol resolution (catalog, on-demand folder, generation) and
the environment. Everything here calls the C library; nothing is re-implemented."""

import ctypes
import glob
import json
import os
import threading

__all__ = ["CooplinkError", "library", "environment", "catalog_dir", "resolve", "Resolved"]

_HERE = os.path.dirname(os.path.abspath(__file__))


class CooplinkError(RuntimeError):
    """A libcooplink call failed: `code` is the result's name (COOP_ERROR_...), the message has its log."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _library_path():
    env = os.environ.get("COOPLINK_LIBRARY")
    if env:
        return env
    # meson-python puts the library in <purelib>/.cooplink.mesonpy.libs
    for d in (os.path.join(_HERE, "..", ".cooplink.mesonpy.libs"), os.path.join(_HERE, "lib")):
        found = sorted(glob.glob(os.path.join(d, "libcooplink.so*")), key=len)
        if found:
            return os.path.normpath(found[0])
    import ctypes.util
    return ctypes.util.find_library("cooplink")


class _Env(ctypes.Structure):
    _fields_ = [("version", ctypes.c_char_p), ("catalog_dir", ctypes.c_char_p), ("cache_dir", ctypes.c_char_p),
                ("toolkit_root", ctypes.c_char_p), ("nvjitlink_major", ctypes.c_int),
                ("nvjitlink_minor", ctypes.c_int)]


class _Info(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_double), ("cache_hit", ctypes.c_int), ("n_bundles", ctypes.c_size_t),
                ("n_generated", ctypes.c_size_t)]


_lock = threading.Lock()
_lib = None


def library():
    """The loaded libcooplink (ctypes.CDLL), its prototypes declared."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        path = _library_path()
        if not path:
            raise CooplinkError("COOP_ERROR_IO", "libcooplink not found: reinstall cooplink or set COOPLINK_LIBRARY")
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise CooplinkError("COOP_ERROR_IO", f"libcooplink could not be loaded from {path}: {e}") from None
        P, c = ctypes.POINTER, ctypes
        proto = {
            "coop_result_name": (c.c_char_p, [c.c_int]),
            "coop_get_environment": (c.c_int, [P(_Env)]),
            "coop_catalog_open": (c.c_int, [P(c.c_void_p), c.c_char_p, P(c.c_void_p)]),
            "coop_catalog_close": (c.c_int, [P(c.c_void_p)]),
            "coop_catalog_get_counts": (c.c_int, [c.c_void_p, P(c.c_size_t), P(c.c_size_t)]),
            "coop_linker_create": (c.c_int, [P(c.c_void_p), c.c_void_p, c.c_uint, P(c.c_char_p)]),
            "coop_linker_destroy": (c.c_int, [P(c.c_void_p)]),
            "coop_linker_add_symbol": (c.c_int, [c.c_void_p, c.c_char_p]),
            "coop_linker_add_type": (c.c_int, [c.c_void_p, c.c_char_p, c.c_size_t, c.c_size_t]),
            "coop_linker_add_data": (c.c_int, [c.c_void_p, c.c_int, c.c_void_p, c.c_size_t, c.c_char_p]),
            "coop_linker_resolve": (c.c_int, [c.c_void_p]),
            "coop_linker_complete": (c.c_int, [c.c_void_p]),
            "coop_linker_get_info": (c.c_int, [c.c_void_p, P(_Info)]),
            "coop_linker_get_bundle": (c.c_int, [c.c_void_p, c.c_size_t, P(c.c_char_p)]),
            "coop_linker_get_payload": (c.c_int, [c.c_void_p, c.c_size_t, P(c.c_void_p), P(c.c_size_t), P(c.c_int)]),
            "coop_linker_get_manifest": (c.c_int, [c.c_void_p, c.c_size_t, P(c.c_char_p)]),
            "coop_linker_get_cubin": (c.c_int, [c.c_void_p, P(c.c_void_p), P(c.c_size_t)]),
            "coop_linker_get_ptx": (c.c_int, [c.c_void_p, P(c.c_void_p), P(c.c_size_t)]),
            "coop_linker_get_log_size": (c.c_int, [c.c_void_p, P(c.c_size_t)]),
            "coop_linker_get_log": (c.c_int, [c.c_void_p, c.c_char_p]),
            "coop_gen_describe": (c.c_int, [P(c.c_void_p)]),
        }
        for name, (res, args) in proto.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        lib.free = ctypes.CDLL(None).free
        lib.free.argtypes = [c.c_void_p]
        _lib = lib
        return lib


def _name(rc):
    return library().coop_result_name(rc).decode()


def _take_message(ptr):
    """A malloc'd C string from the library: its text, freed."""
    if not ptr.value:
        return ""
    text = ctypes.string_at(ptr.value).decode(errors="replace")
    library().free(ptr)
    return text


_families = None


def families():
    """What the generator takes, by family (coop_gen_describe): {"block_load": {"scope": "block", "algorithms":
    [{"name": "direct", "warp_multiple": False, "power_of_two_lanes": False}, ...], "default_algorithm": "direct"},
    ...}; read once."""
    global _families
    if _families is None:
        out = ctypes.c_void_p()
        rc = library().coop_gen_describe(ctypes.byref(out))
        if rc:
            raise CooplinkError(_name(rc), "coop_gen_describe failed")
        _families = json.loads(_take_message(out))["families"]
    return _families


def environment():
    """Where libcooplink looks and what it found (dict)."""
    env = _Env()
    rc = library().coop_get_environment(ctypes.byref(env))
    out = {k: (getattr(env, k).decode() if getattr(env, k) else None) for k in
           ("version", "catalog_dir", "cache_dir", "toolkit_root")}
    out["nvjitlink"] = f"{env.nvjitlink_major}.{env.nvjitlink_minor}" if rc == 0 else None
    return out


def catalog_dir():
    """The catalog this process uses: $COOPLINK_CATALOG, else the one installed inside the package, else
    libcooplink's default (the one installed next to it)."""
    env = os.environ.get("COOPLINK_CATALOG")
    if env:
        return env
    inside = os.path.join(_HERE, "catalog")
    if os.path.exists(os.path.join(inside, "catalog.json")):
        return inside
    return environment()["catalog_dir"]


class _Catalog:
    def __init__(self, path):
        lib = library()
        self.path = path
        self.handle = ctypes.c_void_p()
        err = ctypes.c_void_p()
        rc = lib.coop_catalog_open(ctypes.byref(self.handle), path.encode(), ctypes.byref(err))
        msg = _take_message(err)
        if rc:
            raise CooplinkError(_name(rc), f"the catalog {path} cannot be opened: {msg or _name(rc)}")

    def counts(self):
        b, s = ctypes.c_size_t(), ctypes.c_size_t()
        library().coop_catalog_get_counts(self.handle, ctypes.byref(b), ctypes.byref(s))
        return b.value, s.value

    def __del__(self):
        if getattr(self, "handle", None) and self.handle.value and _lib is not None:
            _lib.coop_catalog_close(ctypes.byref(self.handle))


_catalogs = {}


def catalog(path=None):
    """The open catalog (one per folder and process)."""
    path = os.path.abspath(path or catalog_dir())
    with _lock:
        c = _catalogs.get(path)
    if c is None:
        c = _Catalog(path)
        with _lock:
            c = _catalogs.setdefault(path, c)
    return c


class Linker:
    """One coop_linker handle (options as nvJitLink-style strings, see cooplink.h)."""

    def __init__(self, options, catalog_path=None):
        lib = library()
        self._lib = lib
        self.catalog = catalog(catalog_path)
        self.handle = ctypes.c_void_p()
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        rc = lib.coop_linker_create(ctypes.byref(self.handle), self.catalog.handle, len(options), opts)
        if rc:
            log = self.log()
            self.close()
            raise CooplinkError(_name(rc), f"cooplink linker: {log.strip() or _name(rc)}")

    def log(self):
        if not self.handle.value:
            return ""
        n = ctypes.c_size_t()
        self._lib.coop_linker_get_log_size(self.handle, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        self._lib.coop_linker_get_log(self.handle, buf)
        return buf.value.decode(errors="replace")

    def check(self, rc, what):
        if rc:
            raise CooplinkError(_name(rc), f"{what}: {_name(rc)}\n{self.log().strip()}")

    def info(self):
        i = _Info()
        self._lib.coop_linker_get_info(self.handle, ctypes.byref(i))
        return {"seconds": i.seconds, "cache_hit": bool(i.cache_hit), "bundles": i.n_bundles,
                "generated": i.n_generated}

    def close(self):
        if self.handle.value:
            self._lib.coop_linker_destroy(ctypes.byref(self.handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Resolved:
    """A bundle that defines requested symbols: its payload for one arch (bytes; "ltoir" or "fatbin") and
    its manifest's symbol entries (dicts, by name)."""

    def __init__(self, name, payload, kind, manifest_path, symbols):
        self.name, self.payload, self.kind, self.manifest_path, self.symbols = \
            name, payload, kind, manifest_path, symbols


COOP_INPUT_LTOIR, COOP_INPUT_FATBIN = 2, 5  # coop_input_kind (cooplink.h)
_resolved = {}


def resolve(symbols, arch, catalog_path=None, generate=True, types=()):
    """The bundles defining `symbols` for sm_<arch>, found as coop_linker_complete finds them: the catalog,
    the cache's on-demand folder, or generated now (once; later processes find it in the cache). `types`:
    the user types (name, size, align) the symbols take. Returns a dict symbol -> Resolved. Raises
    CooplinkError naming the symbol and the library's log."""
    types = tuple(types)
    key_base = (os.path.abspath(catalog_path or catalog_dir()), int(arch), types)
    out, todo = {}, []
    with _lock:
        for s in symbols:
            r = _resolved.get(key_base + (s,))
            if r is None:
                todo.append(s)
            else:
                out[s] = r
    if not todo:
        return out
    opts = [f"-arch=sm_{int(arch)}", f"-generate={1 if generate else 0}"]
    lib = library()
    with Linker(opts, catalog_path) as lk:
        for name, size, align in types:
            lk.check(lib.coop_linker_add_type(lk.handle, name.encode(), size, align), f"user type {name}")
        for s in todo:
            lk.check(lib.coop_linker_add_symbol(lk.handle, s.encode()), f"{s}: not a cooplink symbol")
        lk.check(lib.coop_linker_resolve(lk.handle), "cooplink could not provide " + ", ".join(todo))
        info = lk.info()
        for i in range(info["bundles"]):
            name, path = ctypes.c_char_p(), ctypes.c_char_p()
            data, size, kind = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_int()
            lk.check(lib.coop_linker_get_bundle(lk.handle, i, ctypes.byref(name)), "bundle name")
            lk.check(lib.coop_linker_get_manifest(lk.handle, i, ctypes.byref(path)), "bundle manifest")
            lk.check(lib.coop_linker_get_payload(lk.handle, i, ctypes.byref(data), ctypes.byref(size),
                                                 ctypes.byref(kind)), "bundle payload")
            payload = ctypes.string_at(data.value, size.value)
            mpath = path.value.decode()
            with open(mpath, encoding="utf-8") as f:
                manifest = json.load(f)
            entries = {e["name"]: e for e in manifest["symbols"]}
            r = Resolved(name.value.decode(), payload, "fatbin" if kind.value == COOP_INPUT_FATBIN else "ltoir",
                         mpath, entries)
            for s in todo:
                if s in entries:
                    out[s] = r
        generated = info["generated"]
    missing = [s for s in todo if s not in out]
    if missing:
        raise CooplinkError("COOP_ERROR_SYMBOL_MISSING", "no bundle defines " + ", ".join(missing))
    with _lock:
        for s in todo:
            _resolved[key_base + (s,)] = out[s]
    resolve.generated += generated
    return out


resolve.generated = 0  # symbols generated on demand by this process (tests count them)


def link(inputs, arch, options=(), types=()):
    """Links inputs [(kind, data, name)] (kind "ltoir", "ptx", "cubin", "fatbin" or "cuda") for sm_<arch>
    through libcooplink, which adds the bundles the inputs call; `types`: the user types (name, size,
    align) their symbols take. Returns {"cubin", "ptx" (with "-ptx" in options), "log", "info"}."""
    kinds = {"cuda": 1, "ltoir": COOP_INPUT_LTOIR, "ptx": 3, "cubin": 4, "fatbin": COOP_INPUT_FATBIN}
    lib = library()
    with Linker([f"-arch=sm_{int(arch)}"] + list(options)) as lk:
        for name, size, align in types:
            lk.check(lib.coop_linker_add_type(lk.handle, name.encode(), size, align), f"user type {name}")
        for kind, data, name in inputs:
            data = bytes(data)
            lk.check(lib.coop_linker_add_data(lk.handle, kinds[kind], data, len(data), name.encode()),
                     f"{name}: input refused")
        lk.check(lib.coop_linker_complete(lk.handle), "cooplink link failed")
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        lk.check(lib.coop_linker_get_cubin(lk.handle, ctypes.byref(p), ctypes.byref(n)), "cubin")
        out = {"cubin": ctypes.string_at(p.value, n.value), "ptx": None, "log": lk.log(), "info": lk.info()}
        if lib.coop_linker_get_ptx(lk.handle, ctypes.byref(p), ctypes.byref(n)) == 0:
            out["ptx"] = ctypes.string_at(p.value, n.value).decode()
        return out
