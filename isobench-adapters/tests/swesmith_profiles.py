"""Prints the profiles the installed swesmith registers, one a line: `owner/repo commit`,
sorted, the way `data/swesmith-0.0.9-profiles.txt` declares them. Every profile's GitHub
organisation must be `swesmith` and its architecture `x86_64`, which the declaration
assumes; a profile that differs is printed as an error."""
import sys

from swesmith.profiles import registry

lines = set()
for profile in registry.values():
    if profile.org_gh != "swesmith" or profile.arch != "x86_64" or profile.org_dh != "swebench":
        sys.exit(f"{profile.owner}/{profile.repo}: organisation {profile.org_gh!r}, image namespace {profile.org_dh!r}, architecture {profile.arch!r}")
    lines.add(f"{profile.owner}/{profile.repo} {profile.commit}")
for line in sorted(lines):
    print(line)
