from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # Last, so the app's catch-all routes cannot shadow admin or accounts.
    path("", include("combat.urls")),
]

# Every refusal in words, as JSON under /api/ (combat.views.refuse).
handler400 = "combat.views.bad_request"
handler403 = "combat.views.permission_denied"
handler404 = "combat.views.page_not_found"
handler500 = "combat.views.server_error"
