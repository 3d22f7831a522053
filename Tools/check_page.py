#!/usr/bin/env python3
"""The page `swiftseg serve` serves at GET /, in a real headless browser: pick a photo, wait for the cutout,
instances, labels and rectangles, turn on alpha matting, then clean edges, switch to the mask, pick a WebP photo, check every
result; prints one line and exits 0, or names what failed and exits 1. Exit 77 (skipped) when no browser is installed.

    python3 Tools/check_page.py [--swiftseg .build/release/swiftseg] [--screenshot page.png]

Needs Debian's chromium and chromium-driver and Selenium (pip install -r Tools/requirements-page.txt). Run by
Tests/SwiftsegCLITests/ServeCLITests.swift: in CI, which installs all three (.ci/run), always; elsewhere where
all three exist, and the test says it skipped otherwise.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--swiftseg", default=os.path.join(HERE, "..", ".build", "release", "swiftseg"))
    p.add_argument("--photo", default=os.path.join(HERE, "..", "Tests", "Fixtures", "photos", "coins.png"))
    p.add_argument("--webp", default=os.path.join(HERE, "..", "Tests", "Fixtures", "decode", "webp-alpha.webp"))
    p.add_argument("--screenshot")
    a = p.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        print("check_page: skipped: no selenium (pip install -r Tools/requirements-page.txt)")
        return SKIP
    if not chromium or not driver:
        print("check_page: skipped: no chromium/chromedriver (apt-get install chromium chromium-driver)")
        return SKIP

    server = subprocess.Popen([a.swiftseg, "serve", "--port", "0", "--quiet", "--concurrent", "1"],
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not match:
            print(f"check_page: the server did not start: {line.strip()}")
            return 1
        url = f"http://127.0.0.1:{match.group(1)}/"
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"]:
            options.add_argument(flag)
        browser = webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver), options=options)
        try:
            browser.get(url)
            wait = WebDriverWait(browser, 60)
            browser.find_element(By.ID, "file").send_keys(os.path.abspath(a.photo))
            wait.until(lambda b: "instance(s)" in b.find_element(By.ID, "status").text
                       or b.find_element(By.ID, "status").get_attribute("class") == "error")
            status = browser.find_element(By.ID, "status")
            if status.get_attribute("class") == "error":
                print(f"check_page: the page reported an error: {status.text}")
                return 1
            checks = {
                "result image": browser.execute_script("return document.getElementById('result').naturalWidth") > 0,
                "photo image": browser.execute_script("return document.getElementById('photo').naturalWidth") > 0,
                "instances listed": len(browser.find_elements(By.CSS_SELECTOR, "#instances tr")) >= 2,
                "labels listed": len(browser.find_elements(By.CSS_SELECTOR, "#labels tr")) >= 2,
                "download link": browser.find_element(By.ID, "download").is_displayed(),
            }
            plain_src = browser.find_element(By.ID, "result").get_attribute("src")
            browser.find_element(By.ID, "matting").click()
            wait.until(lambda b: b.find_element(By.ID, "result").get_attribute("src") != plain_src)
            wait.until(lambda b: b.execute_script("return document.getElementById('result').complete"))
            checks["alpha matting"] = (browser.find_element(By.ID, "status").get_attribute("class") != "error"
                                       and browser.execute_script("return document.getElementById('result').naturalWidth") > 0)
            def toggle(element_id):
                """Clicks a checkbox and waits for the result it asks for; returns the new result's address."""
                before = browser.find_element(By.ID, "result").get_attribute("src")
                browser.find_element(By.ID, element_id).click()
                wait.until(lambda b: b.find_element(By.ID, "result").get_attribute("src") != before)
                wait.until(lambda b: b.execute_script("return document.getElementById('result').complete"))
                return browser.find_element(By.ID, "result").get_attribute("src")
            toggle("matting")   # off again: clean edges (rembg's -dc) on the plain cutout
            toggle("decontaminate")
            checks["clean edges"] = (browser.find_element(By.ID, "status").get_attribute("class") != "error"
                                     and browser.execute_script("return document.getElementById('result').naturalWidth") > 0)
            cutout_src = toggle("decontaminate")
            browser.find_element(By.CSS_SELECTOR, "input[value=mask]").click()
            wait.until(lambda b: b.find_element(By.ID, "result").get_attribute("src") != cutout_src)
            wait.until(lambda b: b.execute_script("return document.getElementById('result').complete"))
            checks["mask replaces the cutout"] = browser.execute_script(
                "return document.getElementById('result').naturalWidth") > 0
            # WebP out: the download becomes a .webp file whose bytes are WebP.
            from selenium.webdriver.support.ui import Select
            shown = browser.find_element(By.ID, "result").get_attribute("src")
            Select(browser.find_element(By.ID, "format")).select_by_value("webp")
            wait.until(lambda b: b.find_element(By.ID, "result").get_attribute("src") != shown)
            wait.until(lambda b: b.execute_script("return document.getElementById('result').complete"))
            head = browser.execute_async_script(
                "const done = arguments[0]; fetch(document.getElementById('download').href).then(r => r.arrayBuffer())"
                ".then(b => done(Array.from(new Uint8Array(b.slice(0, 12)))));")
            checks["WebP download"] = (bytes(head[8:12]) == b"WEBP"
                                       and browser.find_element(By.ID, "download").get_attribute("download").endswith(".webp"))
            Select(browser.find_element(By.ID, "format")).select_by_value("png")
            # Another format: the file picker offers WebP, and a WebP photo gets its cutout too.
            checks["picker offers WebP"] = "image/webp" in browser.find_element(By.ID, "file").get_attribute("accept")
            mask_src = browser.find_element(By.ID, "result").get_attribute("src")
            browser.find_element(By.ID, "file").send_keys(os.path.abspath(a.webp))
            wait.until(lambda b: b.find_element(By.ID, "result").get_attribute("src") != mask_src
                       or b.find_element(By.ID, "status").get_attribute("class") == "error")
            wait.until(lambda b: b.execute_script("return document.getElementById('result').complete"))
            checks["a WebP photo"] = (browser.find_element(By.ID, "status").get_attribute("class") != "error"
                                      and browser.execute_script("return document.getElementById('result').naturalWidth") > 0)
            if a.screenshot:
                browser.save_screenshot(a.screenshot)
            failed = [name for name, ok in checks.items() if not ok]
            if failed:
                print("check_page: failed: " + ", ".join(failed))
                return 1
            print(f"check_page: ok ({status.text})")
            return 0
        finally:
            browser.quit()
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
