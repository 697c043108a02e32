"""The site test's marker: `-m "not site"` leaves it out."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "site: builds the static site and reads it in headless Chromium (deselect with -m 'not site')"
    )
