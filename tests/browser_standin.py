"""A browser stand-in for tests (`BROWSER="python tests/browser_standin.py %s"`): it opens the
authorization URL as a browser would, with no person to click, and follows the authorization
server's redirect back to the loopback callback."""

from __future__ import annotations

import os
import sys
import time

import httpx2


def main(url: str) -> None:
    time.sleep(float(os.environ.get("BROWSER_STANDIN_SECONDS", "0")))  # a person reading, typing a password
    answer = httpx2.get(url, follow_redirects=False, timeout=30)
    location = answer.headers.get("location")
    if answer.status_code not in (301, 302, 303, 307, 308) or not location:
        sys.exit(f"browser stand-in: expected a redirect from the authorization server, got {answer.status_code}")
    httpx2.get(location, timeout=30)


if __name__ == "__main__":
    main(sys.argv[1])
