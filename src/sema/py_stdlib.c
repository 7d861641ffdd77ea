/* py_stdlib.c: the modules of Python's standard library (3.11's
 * sys.stdlib_module_names, private ones left out but __future__), so that a
 * module-level `try:` can tell an import Python runs (os, warnings: tile
 * models few of them) from one of a package tile cannot find. */
#include <stdlib.h>
#include <string.h>

#include "sema/sema_int.h"

static const char *const stdlib_modules[] = {
	"__future__", "abc", "aifc", "antigravity", "argparse", "array", "ast", "asynchat", "asyncio",
	"asyncore", "atexit", "audioop", "base64", "bdb", "binascii", "bisect", "builtins", "bz2",
	"cProfile", "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop",
	"collections", "colorsys", "compileall", "concurrent", "configparser", "contextlib",
	"contextvars", "copy", "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime",
	"dbm", "decimal", "difflib", "dis", "distutils", "doctest", "email", "encodings", "ensurepip",
	"enum", "errno", "faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "fractions",
	"ftplib", "functools", "gc", "genericpath", "getopt", "getpass", "gettext", "glob", "graphlib",
	"grp", "gzip", "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib", "imghdr", "imp",
	"importlib", "inspect", "io", "ipaddress", "itertools", "json", "keyword", "lib2to3", "linecache",
	"locale", "logging", "lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes", "mmap",
	"modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib", "nt", "ntpath",
	"nturl2path", "numbers", "opcode", "operator", "optparse", "os", "ossaudiodev", "pathlib", "pdb",
	"pickle", "pickletools", "pipes", "pkgutil", "platform", "plistlib", "poplib", "posix",
	"posixpath", "pprint", "profile", "pstats", "pty", "pwd", "py_compile", "pyclbr", "pydoc",
	"pydoc_data", "pyexpat", "queue", "quopri", "random", "re", "readline", "reprlib", "resource",
	"rlcompleter", "runpy", "sched", "secrets", "select", "selectors", "shelve", "shlex", "shutil",
	"signal", "site", "smtpd", "smtplib", "sndhdr", "socket", "socketserver", "spwd", "sqlite3",
	"sre_compile", "sre_constants", "sre_parse", "ssl", "stat", "statistics", "string", "stringprep",
	"struct", "subprocess", "sunau", "symtable", "sys", "sysconfig", "syslog", "tabnanny", "tarfile",
	"telnetlib", "tempfile", "termios", "textwrap", "this", "threading", "time", "timeit", "tkinter",
	"token", "tokenize", "tomllib", "trace", "traceback", "tracemalloc", "tty", "turtle",
	"turtledemo", "types", "typing", "unicodedata", "unittest", "urllib", "uu", "uuid", "venv",
	"warnings", "wave", "weakref", "webbrowser", "winreg", "winsound", "wsgiref", "xdrlib", "xml",
	"xmlrpc", "zipapp", "zipfile", "zipimport", "zlib", "zoneinfo",
};

static int by_name(const void *key, const void *item) { return strcmp(key, *(const char *const *)item); }

bool py_stdlib_module(const char *root)
{
	return bsearch(root, stdlib_modules, sizeof stdlib_modules / sizeof stdlib_modules[0], sizeof stdlib_modules[0],
		       by_name) != NULL;
}
