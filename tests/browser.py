"""Headless Chromium for the page tests: Debian's chromium + chromium-driver via Selenium,
started as the project's pages must be openable: no network, no GPU, no first-run UI."""
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--window-size=1400,1000"]
MISSING = "needs headless Chromium: apt-get install -y chromium chromium-driver (.ci/run does)"


def chromium_driver():
    """A started Selenium driver with the browser console log enabled; skips without Chromium."""
    if not CHROMIUM.exists():
        pytest.skip(MISSING)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def console_errors(driver) -> list[str]:
    """Messages the page logged at SEVERE level since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
