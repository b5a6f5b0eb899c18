"""task=view in a real headless browser (Debian's chromium + chromium-driver, driven by selenium): a viewer
started by `python -m gym task=view`, each kind of page opened by following links, the tasks table
filtered, searched and sorted, rows landing while the page is open, and the static export opened from disk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.view_helpers import Viewer, data_env

CHROMIUM, DRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (Path(CHROMIUM).is_file() and Path(DRIVER).is_file()):
    pytest.skip("no browser: chromium and chromium-driver are not installed (.ci/run installs them with apt-get)",
                allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def runs(viewer_runs) -> dict[str, Path]:
    return viewer_runs


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def viewer(runs):
    started = Viewer(f"rollouts={runs['gsm'].parent}", env=data_env(runs))
    yield started
    assert started.stop() == 0


def wait(browser, condition, what: str, seconds: float = 30):
    return WebDriverWait(browser, seconds, poll_frequency=0.05).until(lambda d: condition(d), message=what)


def table_rows(browser) -> list[list[str]]:
    return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in browser.find_elements(By.CSS_SELECTOR, "#tasks tbody tr")]


def loaded(browser, total: int | None = None) -> bool:
    table = browser.find_element(By.ID, "tasks")
    return bool(table.get_attribute("data-loaded")) and (total is None or table.get_attribute("data-total") == str(total))


def reload_mark(browser) -> str:
    return browser.find_element(By.ID, "tasks").get_attribute("data-loaded") or ""


def changed(browser, before: str) -> bool:
    return reload_mark(browser) not in ("", before)


def test_from_the_runs_page_to_an_episode(browser, viewer, runs):
    browser.get(f"{viewer.url}/index.html")
    assert "Runs" in browser.find_element(By.TAG_NAME, "h1").text
    browser.find_element(By.LINK_TEXT, "tau").click()
    wait(browser, lambda d: "tau2_mock" in d.find_element(By.TAG_NAME, "h2").text, "the run page")
    assert browser.find_element(By.CSS_SELECTOR, "svg.hist")
    browser.find_element(By.ID, "tasks-link").click()
    wait(browser, loaded, "the tasks table")
    rows = [json.loads(line) for line in (runs["tau"] / "rollouts.jsonl").read_text().splitlines()]
    assert len(table_rows(browser)) == len(rows)
    profile = [json.loads(line) for line in (runs["tau"] / "reward_profile.jsonl").read_text().splitlines()]
    unsolved = {p["task_index"] for p in profile if p["bucket"] == "unsolved"}
    assert unsolved, "the mock run has unsolved tasks"
    before = reload_mark(browser)
    Select(browser.find_element(By.ID, "f-bucket")).select_by_value("unsolved")
    wait(browser, lambda d: changed(d, before), "the filtered table")
    shown = table_rows(browser)
    assert {int(r[0]) for r in shown} == unsolved and {r[6] for r in shown} == {"unsolved"}
    assert "bucket=unsolved" in browser.current_url  # the filter is in the link
    browser.find_elements(By.CSS_SELECTOR, "#tasks tbody tr a")[0].click()
    wait(browser, lambda d: d.find_elements(By.ID, "trajectory"), "the episode page")
    assert browser.find_element(By.ID, "reward").text == "0.0"
    checks = browser.find_element(By.ID, "checks").text
    assert "database" in checks and "no" in checks
    assert browser.find_elements(By.CSS_SELECTOR, "#trajectory .msg.user")
    assert browser.find_element(By.ID, "counters").text.startswith("termination")


def test_search_and_sort_the_tasks_table(browser, viewer, runs):
    browser.get(f"{viewer.url}/index.html")
    browser.find_element(By.LINK_TEXT, "gsm").click()
    browser.find_element(By.ID, "tasks-link").click()
    wait(browser, loaded, "the tasks table")
    rows = [json.loads(line) for line in (runs["gsm"] / "rollouts.jsonl").read_text().splitlines()]
    before = reload_mark(browser)
    browser.find_element(By.CSS_SELECTOR, "th[data-sort=reward]").click()
    wait(browser, lambda d: changed(d, before), "the table sorted by reward")
    rewards = [float(r[4]) for r in table_rows(browser)]
    assert rewards == sorted(rewards) and set(rewards) == {r["reward"] for r in rows}
    question = rows[0]["prompt"][-1]["content"].split("\n\n", 1)[1]
    phrase = " ".join(question.split()[:5])
    before = reload_mark(browser)
    browser.find_element(By.ID, "q").send_keys(phrase)
    wait(browser, lambda d: changed(d, before), "the search results")
    assert {int(r[0]) for r in table_rows(browser)} == {rows[0]["task_index"]}
    browser.find_element(By.CSS_SELECTOR, "#tasks tbody tr a").click()
    wait(browser, lambda d: d.find_elements(By.ID, "answer"), "the rollout page")
    assert phrase in browser.find_element(By.CSS_SELECTOR, ".conversation").text
    assert browser.find_element(By.ID, "expected").text == str(rows[0]["expected_answer"])


def test_compare_two_runs(browser, viewer, runs):
    browser.get(f"{viewer.url}/index.html")
    browser.find_element(By.CSS_SELECTOR, "#pairs a").click()
    wait(browser, lambda d: d.find_elements(By.ID, "paired-gsm8k"), "the compare page")
    assert "pass@1" in browser.find_element(By.ID, "paired-gsm8k").text
    links = browser.find_elements(By.CSS_SELECTOR, "ul.flips a")
    if links:
        links[0].click()
        wait(browser, lambda d: d.find_elements(By.ID, "answer"), "a flipped task's rollout")


def test_rows_landing_while_the_page_is_open(browser, runs, tmp_path):
    lines = (runs["gsm"] / "rollouts.jsonl").read_text().splitlines(keepends=True)
    growing = tmp_path / "live" / "rollouts.jsonl"
    growing.parent.mkdir()
    growing.write_text("".join(lines[:4]))
    viewer = Viewer(f"rollouts={growing}")
    try:
        browser.get(f"{viewer.url}/run/0/tasks.html")
        wait(browser, lambda d: loaded(d, 4), "the first rows")
        growing.open("a").write("".join(lines[4:]))
        wait(browser, lambda d: loaded(d, len(lines)), "the rows that landed")
        assert len(table_rows(browser)) == min(50, len(lines))
    finally:
        assert viewer.stop() == 0


def test_the_static_export_opens_from_disk(browser, runs, viewer_export):
    site, _ = viewer_export  # `task=view view.export=...` of the runs (tests/conftest.py)
    browser.get((site / "index.html").as_uri())
    browser.find_element(By.LINK_TEXT, "tau").click()
    browser.find_element(By.ID, "tasks-link").click()
    wait(browser, loaded, "the exported tasks table")
    rows = [json.loads(line) for line in (runs["tau"] / "rollouts.jsonl").read_text().splitlines()]
    assert len(table_rows(browser)) == len(rows)
    failed = {r["task_index"] for r in rows if r["reward"] == 0}
    before = reload_mark(browser)
    browser.find_element(By.CSS_SELECTOR, "th[data-sort=reward]").click()
    wait(browser, lambda d: changed(d, before), "the sorted table")
    first = table_rows(browser)[0]
    assert float(first[4]) == 0.0 and int(first[0]) in failed
    before = reload_mark(browser)
    Select(browser.find_element(By.ID, "f-reward_band")).select_by_value("1")
    wait(browser, lambda d: changed(d, before), "the table filtered by reward")
    passed = [r for r in rows if r["reward"] == 1]
    assert browser.find_element(By.ID, "tasks").get_attribute("data-total") == str(len(passed))
    assert {float(r[4]) for r in table_rows(browser)} == {1.0}
    before = reload_mark(browser)
    Select(browser.find_element(By.ID, "f-reward_band")).select_by_value("")
    wait(browser, lambda d: changed(d, before), "the whole table again")
    browser.find_element(By.CSS_SELECTOR, "#tasks tbody tr a").click()
    wait(browser, lambda d: d.find_elements(By.ID, "trajectory"), "the exported episode page")
    assert browser.find_element(By.ID, "reward").text == "0.0"
