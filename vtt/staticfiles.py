"""The staticfiles app, minus what django-ninja ships that no page here loads.

`collectstatic` copies, hashes and (in production) compresses every app's static files.
ninja's wheel brings Redoc and a source map of the Swagger UI bundle (5 MB together)
besides the Swagger UI that /api/docs/ uses; compressing those with brotli took
collectstatic past two minutes on this project's 2-core machines for files nobody asks for.
"""

from django.contrib.staticfiles.apps import StaticFilesConfig


class StaticFiles(StaticFilesConfig):
    ignore_patterns = [
        *StaticFilesConfig.ignore_patterns,
        "redoc.standalone.js",
        "redoc.standalone.js.map",
        "swagger-ui-bundle.js.map",
        "swagger-ui-init.js",
    ]
