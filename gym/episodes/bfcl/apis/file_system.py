"""BFCL's GorillaFileSystem: an in-memory tree of directories and files with shell-like commands.

Upstream's behaviour is kept where it shows: `pwd` names every directory up to the top including the root's
own name; moving or copying a directory builds a new directory around the same contents (copying shares
the children, so the copies stay linked; the moved children still point at their old parent); a name
clash inside a target directory surfaces as upstream's ValueError text. The state the checker compares is
the tree of names and contents (`root`) and `long_context`.
"""

from __future__ import annotations

from gym.episodes.bfcl.apis import Api

BAD_NAME_CHARACTERS = '|/\\?%*:"><'


def _bad_name(name: str) -> bool:
    return any(character in name for character in BAD_NAME_CHARACTERS)


class File:
    def __init__(self, name: str, content: str = "") -> None:
        self.name = name
        self.content = content


class Directory:
    def __init__(self, name: str, parent: Directory | None = None) -> None:
        self.name = name
        self._parent = parent
        self.contents: dict[str, File | Directory] = {}

    def __eq__(self, other: object) -> bool:  # upstream compares names and contents, never parents
        return isinstance(other, Directory) and (self.name, self.contents) == (other.name, other.contents)

    __hash__ = object.__hash__

    def _add_file(self, name: str, content: str = "") -> None:
        if name in self.contents:
            raise ValueError(f"File '{name}' already exists in directory '{self.name}'.")
        self.contents[name] = File(name, content)

    def _add_directory(self, name: str) -> Directory:
        if name in self.contents:
            raise ValueError(f"Directory '{name}' already exists in directory '{self.name}'.")
        self.contents[name] = Directory(name, self)
        return self.contents[name]

    def _item(self, name: str) -> File | Directory | None:
        return self if name == "." else self.contents.get(name)


def _size(item: File | Directory) -> int:
    if isinstance(item, File):
        return len(item.content.encode("utf-8"))
    return sum(_size(child) for child in item.contents.values())


def _human_size(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


class GorillaFileSystem(Api):
    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        self.long_context = long_context is not None
        self._extra = long_context or {}
        self.root = Directory("/")
        if "root" in config:
            top_name, top = next(iter(config["root"].items()))
            self.root = self._load(top["contents"], Directory(top_name))
        self._current = self.root

    def _load(self, entries: dict, into: Directory) -> Directory:
        """Fill `into` from a config tree; long-context entries lengthen files and fill leaf directories."""
        has_subdirectory = False
        for name, entry in entries.items():
            if entry["type"] == "directory":
                has_subdirectory = True
                into.contents[name] = self._load(entry["contents"], Directory(name, into))
            elif entry["type"] == "file":
                content = entry["content"]
                if self.long_context and name not in self._extra["FILES_TAIL_USED"]:
                    content += self._extra["FILE_CONTENT_EXTENSION"]
                into.contents[name] = File(name, content)
        if self.long_context and not has_subdirectory:
            for name in self._extra["POPULATE_FILE_EXTENSION"]:
                into._add_file(name)
        return into

    def _local_file(self, name: str) -> File | None:
        item = self._current.contents.get(name)
        return item if isinstance(item, File) else None

    def _resolve(self, path: str | None) -> Directory | dict:
        """The directory at `path` (absolute, or relative to the current one), or upstream's cd error."""
        if path is None or path == ".":
            return self._current
        if path == "/":
            return self.root
        here = self.root if path.startswith("/") else self._current
        for part in path.strip("/").split("/"):
            here = here._item(part)
            if not isinstance(here, Directory):
                return {"error": f"cd: '{path}': No such file or directory"}
        return here

    def pwd(self) -> dict:
        names, here = [], self._current
        while here is not None:
            names.append(here.name)
            here = here._parent
        return {"current_working_directory": "/" + "/".join(reversed(names))}

    def ls(self, a: bool = False) -> dict:
        names = list(self._current.contents)
        return {"current_directory_content": names if a else [n for n in names if not n.startswith(".")]}

    def cd(self, folder: str) -> dict:
        folder = folder.rstrip("/") or "/"
        if folder not in {".", "..", "/"} and "/" in folder:
            return {"error": f"cd: {folder}: Unsupported path. Only one folder level at a time is supported."}
        if folder == "..":
            if self._current._parent:
                self._current = self._current._parent
                return {}
            if self.root == self._current:
                return {"error": "Current directory is already the root. Cannot go back."}
            return {"error": "cd: ..: No such directory"}
        target = self._resolve(folder)
        if isinstance(target, dict):
            return target
        self._current = target
        return {"current_working_directory": target.name}

    def mkdir(self, dir_name: str) -> dict | None:
        if _bad_name(dir_name):
            return {"error": f"mkdir: cannot create directory '{dir_name}': Invalid character"}
        if dir_name in self._current.contents:
            return {"error": f"mkdir: cannot create directory '{dir_name}': File exists"}
        self._current._add_directory(dir_name)
        return None

    def touch(self, file_name: str) -> dict | None:
        if _bad_name(file_name):
            return {"error": f"touch: cannot touch '{file_name}': Invalid character"}
        if file_name in self._current.contents:
            return {"error": f"touch: cannot touch '{file_name}': File exists"}
        self._current._add_file(file_name)
        return None

    def echo(self, content: str, file_name: str | None = None) -> dict | None:
        if file_name is None:
            return {"terminal_output": content}
        if _bad_name(file_name):
            return {"error": f"echo: cannot write to '{file_name}': Invalid character"}
        if not file_name:
            return {"terminal_output": content}
        if file_name not in self._current.contents:
            return {"error": f"echo: cannot write to '{file_name}': No such file"}
        item = self._current._item(file_name)
        if isinstance(item, Directory):  # upstream calls a file-only method on it
            raise AttributeError("'Directory' object has no attribute '_write'")
        item.content = content
        return None

    def cat(self, file_name: str) -> dict:
        if _bad_name(file_name):
            return {"error": f"cat: '{file_name}': Invalid character"}
        if file_name not in self._current.contents:
            return {"error": f"cat: '{file_name}': No such file or directory"}
        item = self._current._item(file_name)
        if isinstance(item, File):
            return {"file_content": item.content}
        return {"error": f"cat: '{file_name}': Is a directory"}

    def find(self, path: str = ".", name: str | None = None) -> dict:
        start = self._resolve(path)
        if isinstance(start, dict):
            message = start.get("error", "")
            return {"error": message.replace("cd:", "find:", 1)} if message.startswith("cd:") else start
        matches: list[str] = []

        def walk(directory: Directory, prefix: str) -> None:
            for item_name, item in directory.contents.items():
                item_path = f"{prefix}/{item_name}"
                if name is None or name in item_name:
                    matches.append(item_path)
                if isinstance(item, Directory):
                    walk(item, item_path)

        walk(start, path.rstrip("/"))
        return {"matches": matches}

    def wc(self, file_name: str, mode: str = "l") -> dict:
        if mode not in ("l", "w", "c"):
            return {"error": f"wc: invalid mode '{mode}'"}
        file = self._local_file(file_name) if file_name in self._current.contents else None
        if file is None:
            return {"error": f"wc: {file_name}: No such file or directory"}
        if mode == "l":
            return {"count": len(file.content.splitlines()), "type": "lines"}
        if mode == "w":
            return {"count": len(file.content.split()), "type": "words"}
        return {"count": len(file.content), "type": "characters"}

    def sort(self, file_name: str) -> dict:
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"sort: {file_name}: No such file or directory"}
        return {"sorted_content": "\n".join(sorted(file.content.splitlines()))}

    def grep(self, file_name: str, pattern: str) -> dict:
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"grep: {file_name}: No such file or directory"}
        return {"matching_lines": [line for line in file.content.splitlines() if pattern in line]}

    def du(self, human_readable: bool = False) -> dict:
        size = _size(self._current)
        return {"disk_usage": _human_size(size) if human_readable else f"{size} bytes"}

    def tail(self, file_name: str, lines: int = 10) -> dict:
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"tail: {file_name}: No such file or directory"}
        all_lines = file.content.splitlines()
        if lines > len(all_lines):
            lines = len(all_lines)
        # as upstream: a count of 0 (or one cut down to an empty file's 0) shows everything
        return {"last_lines": "\n".join(all_lines[-lines:])}

    def diff(self, file_name1: str, file_name2: str) -> dict:
        first, second = self._local_file(file_name1), self._local_file(file_name2)
        if first is None or second is None:
            return {"error": f"diff: {file_name1} or {file_name2}: No such file or directory"}
        pairs = zip(first.content.splitlines(), second.content.splitlines())
        return {"diff_lines": "\n".join(f"- {a}\n+ {b}" for a, b in pairs if a != b)}

    def _place(self, item: File | Directory, into: Directory, name: str, share_children: bool) -> None:
        """Put a file's content, or a new directory around the item's children, into `into` as `name`."""
        if isinstance(item, File):
            into._add_file(name, item.content)
        else:
            into._add_directory(name).contents = item.contents if share_children else item.contents.copy()

    def _check_transfer(self, verb: str, source: str, destination: str) -> dict | None:
        if source not in self._current.contents:
            return {"error": f"{verb}: cannot {'move' if verb == 'mv' else 'copy'} '{source}': No such file or directory"}
        if "/" in destination:
            return {"error": f"{verb}: path not allowed in destination. Provide only a file or directory name."}
        return None

    def mv(self, source: str, destination: str) -> dict:
        problem = self._check_transfer("mv", source, destination)
        if problem:
            return problem
        item = self._current.contents[source]
        if destination not in self._current.contents:
            self._current.contents.pop(source)
            self._place(item, self._current, destination, share_children=True)
            return {"result": f"'{source}' moved to '{destination}'"}
        target = self._current.contents[destination]
        if not isinstance(target, Directory):
            return {"error": f"mv: cannot move '{source}' to '{destination}': Not a directory"}
        if source in target.contents:
            return {"error": f"mv: cannot move '{source}' to '{destination}/{source}': File exists"}
        self._current.contents.pop(source)
        self._place(item, target, source, share_children=True)
        return {"result": f"'{source}' moved to '{destination}/{source}'"}

    def cp(self, source: str, destination: str) -> dict:
        problem = self._check_transfer("cp", source, destination)
        if problem:
            return problem
        item = self._current.contents[source]
        if destination not in self._current.contents:
            self._place(item, self._current, destination, share_children=False)
            return {"result": f"'{source}' copied to '{destination}'"}
        target = self._current.contents[destination]
        if not isinstance(target, Directory):
            return {"error": f"cp: cannot copy '{source}' to '{destination}': Not a directory"}
        # upstream looks for "<destination>/<source>" among the target's names, so a clash raises instead
        self._place(item, target, source, share_children=False)
        return {"result": f"'{source}' copied to '{destination}/{source}'"}

    def rm(self, file_name: str) -> dict:
        if file_name not in self._current.contents:
            return {"error": f"rm: cannot remove '{file_name}': No such file or directory"}
        self._current.contents.pop(file_name)
        return {"result": f"'{file_name}' removed"}

    def rmdir(self, dir_name: str) -> dict:
        if dir_name not in self._current.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': No such file or directory"}
        item = self._current.contents[dir_name]
        if not isinstance(item, Directory):
            return {"error": f"rmdir: cannot remove '{dir_name}': Not a directory"}
        if item.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': Directory not empty"}
        self._current.contents.pop(dir_name)
        return {"result": f"'{dir_name}' removed"}
