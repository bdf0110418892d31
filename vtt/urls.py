from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # Last, so the app's catch-all routes cannot shadow admin or accounts.
    path("", include("combat.urls")),
]
